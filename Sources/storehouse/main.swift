import StorehouseServer

// storehouse: the shipped kinds behind the command line (`Storehouse.main` parses the flags,
// serves until SIGTERM or SIGINT, then shuts down gracefully).
try Storehouse.main()
