import Foundation

/// A table rendered as aligned plain text or as Markdown.
struct TextTable {
  var header: [String]
  var rows: [[String]]

  /// Columns padded to their widest cell (in characters), two spaces apart; numbers right-aligned.
  var plain: String {
    let widths = header.indices.map { c in
      ([header] + rows).map { $0.indices.contains(c) ? $0[c].count : 0 }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { c, cell in
        let pad = String(repeating: " ", count: max(widths[c] - cell.count, 0))
        return Self.isNumeric(cell) ? pad + cell : cell + pad
      }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }
    return ([line(header)] + rows.map(line)).joined(separator: "\n")
  }

  /// A GitHub-flavoured Markdown table (numbers right-aligned).
  var markdown: String {
    let numeric = header.indices.map { c in
      !rows.isEmpty && rows.allSatisfy { !$0.indices.contains(c) || Self.isNumeric($0[c]) || $0[c] == "-" }
    }
    let escape = { (cell: String) in cell.replacingOccurrences(of: "|", with: "\\|") }
    var lines = ["| " + header.map(escape).joined(separator: " | ") + " |"]
    lines.append("|" + numeric.map { $0 ? " ---: |" : " --- |" }.joined())
    for row in rows { lines.append("| " + row.map(escape).joined(separator: " | ") + " |") }
    return lines.joined(separator: "\n")
  }

  static func isNumeric(_ cell: String) -> Bool { Double(cell) != nil }
}
