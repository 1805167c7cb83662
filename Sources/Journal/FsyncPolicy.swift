/// How durable an append is when its completion runs (docs/API.md "Conventions", `--fsync`).
///
/// - `always`: after `fdatasync`; appends from many sessions that arrive while one sync runs share the next one (group commit).
/// - `batch`: after `write(2)`; dirty files are synced at most every ``Journal/batchInterval`` (a crash loses at most that window).
/// - `never`: after `write(2)`; the kernel decides when data reaches the disk.
public enum FsyncPolicy: String, Sendable, CaseIterable {
    case always, batch, never
}
