/// Decoding of options structs in which every key may be left out: the struct starts from its `init()`
/// (every property at its documented default) and each key present replaces one property, so a partial
/// options file keeps the documented default of every key it does not name; a key the struct does not
/// have is an error naming it (a misspelt option would otherwise be silently ignored).
///
///     public init(from decoder: any Decoder) throws {
///       self.init()
///       let c = try decoder.optionsContainer(keyedBy: CodingKeys.self)
///       try c.decode(.voxelSize, into: &voxelSize)
///     }
extension Decoder {
  /// The keyed container of an options struct whose keys are `keys`.
  /// - Throws: `DecodingError.dataCorrupted` "unknown key 'NAME'" (with its coding path) for the first
  ///   key, in sorted order, that is not one of `keys`.
  func optionsContainer<Key: CodingKey>(keyedBy keys: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let any = try container(keyedBy: OptionName.self)
    if let unknown = any.allKeys.map(\.stringValue).sorted().first(where: { Key(stringValue: $0) == nil }) {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: codingPath + [OptionName(stringValue: unknown)],
          debugDescription: "unknown key '\(unknown)'"))
    }
    return try container(keyedBy: keys)
  }
}

/// Any key of an options object, to find the ones an options struct does not have.
private struct OptionName: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer {
  /// Replaces `value` with the value of `key` when the key is present (and not null); leaves it as it
  /// is (the default) when the key is missing. Throws when the value present has the wrong type.
  func decode<T: Decodable>(_ key: Key, into value: inout T) throws {
    if let decoded = try decodeIfPresent(T.self, forKey: key) { value = decoded }
  }
}
