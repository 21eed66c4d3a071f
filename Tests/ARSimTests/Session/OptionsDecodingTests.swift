import ARSim
import Foundation
import Testing

/// Any JSON value, to change every option of an encoded options struct.
private enum JSONValue: Codable, Equatable {
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let v = try? c.decode(Bool.self) {
      self = .bool(v)
    } else if let v = try? c.decode(Int.self) {
      self = .int(v)
    } else if let v = try? c.decode(Double.self) {
      self = .double(v)
    } else if let v = try? c.decode(String.self) {
      self = .string(v)
    } else if let v = try? c.decode([JSONValue].self) {
      self = .array(v)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .bool(let v): try c.encode(v)
    case .int(let v): try c.encode(v)
    case .double(let v): try c.encode(v)
    case .string(let v): try c.encode(v)
    case .array(let v): try c.encode(v)
    case .object(let v): try c.encode(v)
    }
  }

  /// Every number and flag changed (nested objects too): what a decoder that skipped a key would lose.
  var changed: JSONValue {
    switch self {
    case .bool(let v): .bool(!v)
    case .int(let v): .int(v + 1)
    case .double(let v): .double(v * 1.5 + 0.25)
    case .string, .array: self
    case .object(let v): .object(v.mapValues(\.changed))
    }
  }

  /// Whether `other` holds the same keys and values, numbers within a relative 1e-6 (Float options).
  func matches(_ other: JSONValue) -> Bool {
    switch (self, other) {
    case (.object(let a), .object(let b)):
      a.keys.sorted() == b.keys.sorted() && a.allSatisfy { key, value in b[key].map(value.matches) ?? false }
    case (.double(let a), .double(let b)): abs(a - b) <= 1e-6 * max(1, abs(a))
    case (.int(let a), .double(let b)), (.double(let b), .int(let a)):
      abs(Double(a) - b) <= 1e-6 * max(1, abs(b))
    default: self == other
    }
  }
}

@Suite("Options decoding: partial files keep the documented defaults, unknown keys are refused")
struct OptionsDecodingTests {
  private static func json<T: Encodable>(_ value: T) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
  }

  /// Every key of `defaults`' encoding (nested structs too), changed, survives a decode: no option is
  /// left out of its struct's decoder.
  private static func everyKeyDecodes<T: Codable>(_ defaults: T) throws -> Bool {
    let changed = try json(defaults).changed
    let decoded = try JSONDecoder().decode(T.self, from: JSONEncoder().encode(changed))
    return try json(decoded).matches(changed)
  }

  @Test("every option of every options struct is decoded")
  func everyOptionIsDecoded() throws {
    #expect(try Self.everyKeyDecodes(TrackerOptions()))
    #expect(try Self.everyKeyDecodes(PlaneDetectionOptions()))
    #expect(try Self.everyKeyDecodes(SceneReconstructionOptions()))
  }

  @Test("a partial file keeps every default it does not name, in the sub-structs too")
  func partialKeepsDefaults() throws {
    let data = Data(#"{"targetFeatures": 200, "rgbd": {"bundleWindow": 4}, "mode": "depth"}"#.utf8)
    let decoded = try JSONDecoder().decode(TrackerOptions.self, from: data)
    var expected = TrackerOptions()
    expected.targetFeatures = 200
    expected.rgbd.bundleWindow = 4
    expected.mode = .depth
    #expect(decoded == expected)
    #expect(try JSONDecoder().decode(TrackerOptions.self, from: Data("{}".utf8)) == TrackerOptions())
    #expect(
      try JSONDecoder().decode(SceneReconstructionOptions.self, from: Data(#"{"voxelSize": 0.02}"#.utf8))
        .chunkBlocks
        == SceneReconstructionOptions().chunkBlocks)
  }

  @Test("an unknown key is refused, naming it and where it is")
  func unknownKeysAreRefused() throws {
    for (json, key, path) in [
      (#"{"targetFeaturs": 200}"#, "targetFeaturs", ""),
      (#"{"rgbd": {"bundleWindow": 4, "bogus": 1}}"#, "bogus", "rgbd"),
    ] {
      #expect {
        try JSONDecoder().decode(TrackerOptions.self, from: Data(json.utf8))
      } throws: { error in
        guard case DecodingError.dataCorrupted(let context) = error else { return false }
        return context.debugDescription == "unknown key '\(key)'"
          && context.codingPath.map(\.stringValue).dropLast().joined(separator: ".") == path
      }
    }
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(PlaneDetectionOptions.self, from: Data(#"{"voxelSise": 0.03}"#.utf8))
    }
  }
}
