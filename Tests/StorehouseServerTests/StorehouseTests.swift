import XCTest
@testable import StorehouseServer

/// The engine settings `Storehouse` derives from the server's flags.
final class StorehouseTests: XCTestCase {
    func testTheLoopsYieldWhenBusyExceptUnderFsyncAlways() {
        var configuration = ServerConfiguration()
        configuration.inMemory = true
        XCTAssertNotNil(Storehouse.httpConfiguration(configuration).yieldAfterBusy)
        configuration.inMemory = false
        for fsync in [ServerConfiguration.Fsync.batch, .never] {
            configuration.fsync = fsync
            XCTAssertNotNil(Storehouse.httpConfiguration(configuration).yieldAfterBusy, "\(fsync)")
        }
        configuration.fsync = .always
        XCTAssertNil(Storehouse.httpConfiguration(configuration).yieldAfterBusy)
    }
}
