import Foundation

extension EvaluationReport {
  /// The Markdown report: a section per recording with tables, and a batch table.
  public static func markdown(_ recordings: [RecordingEvaluation]) -> String {
    var out = ["# arsim eval", ""]
    if recordings.count > 1 {
      out += ["## Batch summary (\(recordings.count) recordings)", "", batchTable(recordings).markdown, ""]
    }
    for recording in recordings {
      out.append("## \(recording.recording)")
      out.append("")
      out.append(
        "Mode \(recording.mode)" + (recording.gravitySource.map { ", gravity from \($0)" } ?? "") + ".")
      out.append("")
      out += trackingLines(recording.tracking).map { "- " + $0 }
      out.append("")
      if let planes = recording.planes {
        out += ["### Planes", ""]
        out += planeSummaryLines(planes).map { "- " + $0 }
        out += ["", referenceTable(planes).markdown, ""]
        if !planes.detected.isEmpty { out += [anchorTable(planes).markdown, ""] }
      }
      if let raycasts = recording.raycasts {
        out += ["### Raycasts", ""]
        out += raycastLines(raycasts).map { "- " + $0 }
        out.append("")
      }
      if !recording.notes.isEmpty {
        out += recording.notes.map { "> " + $0 }
        out.append("")
      }
    }
    return out.joined(separator: "\n")
  }
}
