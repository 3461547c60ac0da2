import Foundation

/// The `sio bench` tables: a title, a header row, a rule, then one row per metric, the first
/// column left-aligned and the others right-aligned.
enum MetricTable {
    static func render(title: String, headers: [String], rows: [[String]]) -> String {
        let cells = [headers] + rows
        let widths = headers.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: " │ ")
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─")
        return ([title, line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }
}
