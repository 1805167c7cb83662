// Skeleton: replaced by the server entry point.
print("storehouse")
