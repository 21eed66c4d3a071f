import Foundation

extension EvaluationReport {
  /// The human-readable report: per recording its figures and tables, then the batch table when there
  /// are several recordings.
  public static func text(_ recordings: [RecordingEvaluation]) -> String {
    var out: [String] = []
    for recording in recordings {
      out.append("recording: \(recording.recording)")
      out.append("mode: \(recording.mode)" + (recording.gravitySource.map { ", gravity from \($0)" } ?? ""))
      out += trackingLines(recording.tracking)
      if let planes = recording.planes {
        out += planeSummaryLines(planes)
        out.append(referenceTable(planes).plain)
        if !planes.detected.isEmpty { out.append(anchorTable(planes).plain) }
      }
      if let raycasts = recording.raycasts { out += raycastLines(raycasts) }
      for note in recording.notes { out.append("note: \(note)") }
      out.append("")
    }
    if recordings.count > 1 {
      out.append("batch summary over \(recordings.count) recordings:")
      out.append(batchTable(recordings).plain)
    }
    return out.joined(separator: "\n")
  }
}
