/// Decoding of options structs in which every key may be left out: the struct starts from its `init()`
/// (every property at its documented default) and each key present replaces one property, so a partial
/// options file keeps the documented default of every key it does not name.
///
///     public init(from decoder: any Decoder) throws {
///       self.init()
///       let c = try decoder.container(keyedBy: CodingKeys.self)
///       try c.decode(.voxelSize, into: &voxelSize)
///     }
extension KeyedDecodingContainer {
  /// Replaces `value` with the value of `key` when the key is present (and not null); leaves it as it
  /// is (the default) when the key is missing. Throws when the value present has the wrong type.
  func decode<T: Decodable>(_ key: Key, into value: inout T) throws {
    if let decoded = try decodeIfPresent(T.self, forKey: key) { value = decoded }
  }
}
