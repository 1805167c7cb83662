// Skeleton: replaced by the module's implementation.
