/// The server's name and release, as `GET /` and `storehouse --version` give them.
///
/// ```swift
/// print("\(ServerInfo.name) \(ServerInfo.version)")   // storehouse 0.1.0
/// ```
public enum ServerInfo {
    public static let name = "storehouse"
    public static let version = "0.1.0"
}
