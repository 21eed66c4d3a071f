import ARSim
import ARSimEval
import Foundation

/// Part `index` of `count` of a list (from 0): the items at positions `i` with `i % count == index`,
/// so shards differ in size by at most one and each keeps the list's order.
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The part, from 0 to `count - 1`.
  public var index: Int
  /// The number of parts, at least 1.
  public var count: Int

  /// The whole list as one part.
  public static let whole = Shard(index: 0, count: 1)

  /// Part `index` of `count`.
  ///
  /// - Precondition: `0 <= index < count`.
  public init(index: Int, count: Int) {
    precondition(count >= 1 && (0..<count).contains(index), "shard \(index)/\(count) out of range")
    self.index = index
    self.count = count
  }

  /// Parses `K/N` (`--shard`).
  ///
  /// - Throws: `UsageError` when the text is not `K/N` with `0 <= K < N`.
  public init(parsing text: String) throws {
    let fields = text.split(separator: "/", omittingEmptySubsequences: false)
    guard fields.count == 2, let index = Int(fields[0]), let count = Int(fields[1]) else {
      throw UsageError("--shard must be K/N (part K of N, K from 0), got '\(text)'")
    }
    guard count >= 1 else { throw UsageError("--shard \(text): N must be at least 1") }
    guard (0..<count).contains(index) else {
      throw UsageError("--shard \(text): K must be from 0 to \(count - 1)")
    }
    self.init(index: index, count: count)
  }

  /// `K/N`.
  public var description: String { "\(index)/\(count)" }

  /// The items of this part, in their order.
  public func select<T>(_ items: [T]) -> [T] {
    items.enumerated().filter { $0.offset % count == index }.map(\.element)
  }
}

/// What one shard of `arsim eval` gives (`--shard K/N --json PART`): the run it belongs to (the whole
/// recording list and the options that change results) and the evaluations of its recordings so far,
/// in the shard's order. Stored losslessly (every number exactly), so that merged parts render the
/// report one run over the whole list gives.
public struct EvaluationPart: Sendable, Hashable, Codable {
  /// `arsim-eval-part`.
  public static let formatName = "arsim-eval-part"

  public var format = Self.formatName
  public var version = 1
  /// The whole run's recordings, in order.
  public var recordings: [String]
  /// The run's options that change results (name to value, defaults included).
  public var options: [String: String]
  public var shard: Shard
  /// The shard's recordings evaluated so far, in the shard's order.
  public var evaluations: [RecordingEvaluation]

  /// An empty part of a run.
  public init(recordings: [String], options: [String: String], shard: Shard) {
    self.recordings = recordings
    self.options = options
    self.shard = shard
    evaluations = []
  }

  /// The shard's recordings.
  public var shardRecordings: [String] { shard.select(recordings) }

  /// Whether every recording of the shard has been evaluated.
  public var isComplete: Bool { evaluations.map(\.recording) == shardRecordings }

  /// Whether `other` is a part of the same run (same recordings, options and number of shards).
  public func isSameRun(as other: EvaluationPart) -> Bool {
    recordings == other.recordings && options == other.options && shard.count == other.shard.count
  }

  /// The shard's recordings not evaluated yet, in order.
  public var remainingRecordings: [String] {
    let done = Set(evaluations.map(\.recording))
    return shardRecordings.filter { !done.contains($0) }
  }

  /// Takes over the evaluations of `earlier` (read from `path`: the output of an interrupted or
  /// finished run of the same shard), so that only ``remainingRecordings`` are evaluated again.
  ///
  /// - Throws: `UsageError` naming `path` when `earlier` belongs to another run or shard.
  public mutating func resume(from earlier: EvaluationPart, path: String) throws {
    guard earlier.isSameRun(as: self), earlier.shard == shard else {
      let what =
        earlier.recordings != recordings
        ? "other recordings" : earlier.options != options ? "other options" : "shard \(earlier.shard)"
      throw UsageError("\(path): made by another run (\(what)); remove it or drop --resume")
    }
    let wanted = Set(shardRecordings)
    for evaluation in earlier.evaluations where wanted.contains(evaluation.recording) {
      add(evaluation)
    }
  }

  /// Adds (or replaces) the evaluation of one of the shard's recordings, keeping the shard's order.
  public mutating func add(_ evaluation: RecordingEvaluation) {
    evaluations.removeAll { $0.recording == evaluation.recording }
    evaluations.append(evaluation)
    let order = Dictionary(
      shardRecordings.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    evaluations.sort { (order[$0.recording] ?? .max) < (order[$1.recording] ?? .max) }
  }

  /// Reads a part written by ``write(to:)``.
  ///
  /// - Throws: `RecordingError` naming `path` when it cannot be read or is not a part.
  public static func load(path: String) throws -> EvaluationPart {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw RecordingError(file: path, "no such file")
    }
    let part: EvaluationPart
    do {
      part = try decoder.decode(EvaluationPart.self, from: data)
    } catch let error as DecodingError {
      throw RecordingError(file: path, "not an arsim eval part (\(Self.describe(error)))")
    } catch {
      throw RecordingError(file: path, "not an arsim eval part (\(error.localizedDescription))")
    }
    guard part.format == formatName, part.version == 1 else {
      throw RecordingError(
        file: path, "not an arsim eval part (format \(part.format) version \(part.version))")
    }
    guard part.shard.count >= 1, (0..<part.shard.count).contains(part.shard.index) else {
      throw RecordingError(file: path, "shard \(part.shard) is out of range")
    }
    return part
  }

  /// Writes the part to `path` atomically (keys sorted, so equal parts give identical files).
  public func write(to path: String) throws {
    let file = try OutputFile(path: path)
    try file.write(String(decoding: try Self.encoder.encode(self), as: UTF8.self))
    try file.close()
  }

  /// The evaluations of `parts` (with the paths they came from, for errors) in the run's order: what
  /// one run over the whole list gives.
  ///
  /// - Throws: `UsageError` naming the part when parts belong to different runs (recordings, options
  ///   or number of shards differ), a shard is given twice or is missing, or a part is incomplete.
  public static func merge(_ parts: [(path: String, part: EvaluationPart)]) throws -> [RecordingEvaluation] {
    guard let (firstPath, first) = parts.first else { throw UsageError("merge: no PART given") }
    var byIndex: [Int: String] = [:]
    for (path, part) in parts {
      guard part.isSameRun(as: first) else {
        let what =
          part.recordings != first.recordings
          ? "other recordings" : part.options != first.options ? "other options" : "another number of shards"
        throw UsageError("\(path): belongs to another run than \(firstPath) (\(what))")
      }
      if let other = byIndex[part.shard.index] {
        throw UsageError("\(path): shard \(part.shard) given twice (also \(other))")
      }
      byIndex[part.shard.index] = path
      guard part.isComplete else {
        throw UsageError(
          "\(path): shard \(part.shard) is incomplete (\(part.evaluations.count) of"
            + " \(part.shardRecordings.count) recordings; finish it with --resume)")
      }
    }
    let missing = (0..<first.shard.count).filter { byIndex[$0] == nil }
    guard missing.isEmpty else {
      throw UsageError(
        "merge: missing shard " + missing.map { "\($0)/\(first.shard.count)" }.joined(separator: ", "))
    }
    var evaluations: [String: RecordingEvaluation] = [:]
    for (_, part) in parts {
      for evaluation in part.evaluations { evaluations[evaluation.recording] = evaluation }
    }
    return first.recordings.compactMap { evaluations[$0] }
  }

  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return encoder
  }

  private static var decoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return decoder
  }

  private static func describe(_ error: DecodingError) -> String {
    func at(_ context: DecodingError.Context) -> String {
      let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
      return path.isEmpty ? "" : " at " + path.joined(separator: ".")
    }
    switch error {
    case .keyNotFound(let key, let context): return "no key '\(key.stringValue)'\(at(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      return context.debugDescription + at(context)
    @unknown default: return "\(error)"
    }
  }
}
