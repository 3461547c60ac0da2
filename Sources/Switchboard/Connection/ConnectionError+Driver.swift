extension ConnectionError {
    /// What a failed driver open means to the `connect()` caller.
    init(openFailure error: any Error) {
        switch error {
        case let error as ConnectionError: self = error
        case is CancellationError: self = .cancelled
        default: self = .connectFailed("\(error)")
        }
    }

    /// What a failed driver send or request means to its caller.
    init(driverFailure error: any Error) {
        switch error {
        case let error as ConnectionError: self = error
        case is CancellationError: self = .cancelled
        default: self = .driverFailed("\(error)")
        }
    }
}
