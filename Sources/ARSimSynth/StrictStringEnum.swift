/// A string enumeration whose decoding error lists the accepted values.
public protocol StrictStringEnum: RawRepresentable<String>, CaseIterable, Decodable {}

extension StrictStringEnum {
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let value = Self(rawValue: text) else {
      let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "unknown value '\(text)' (expected one of \(names))"))
    }
    self = value
  }
}
