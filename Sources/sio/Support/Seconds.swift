import ArgumentParser

/// Seconds given on the command line (`--timeout 2.5`), read once for every option that takes
/// them: a finite number, 0 or more, to the millisecond; more than a year counts as a year. Any
/// other value is refused with the option's name before the command runs (`nan` and `1e30` used
/// to stop the process when converted).
enum Seconds {
    /// The longest duration an option gives.
    static let longest: Double = 365 * 86_400

    /// The duration `argument` gives, or a `ValidationError` saying why it is none.
    static func parse(_ argument: String) throws -> Duration {
        guard let value = Double(argument), value.isFinite, value >= 0 else {
            throw ValidationError("'\(argument)' is not a number of seconds, 0 or more")
        }
        return .milliseconds(Int64((min(value, longest) * 1000).rounded(.towardZero)))
    }

    /// Like ``parse(_:)``, for a timeout or a deadline: at least a millisecond (0 would end the
    /// wait before it began, and fail as if the other side never answered).
    static func parsePositive(_ argument: String) throws -> Duration {
        let duration = try parse(argument)
        guard duration > .zero else { throw ValidationError("'\(argument)' is not a number of seconds above 0") }
        return duration
    }
}
