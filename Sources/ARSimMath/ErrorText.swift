extension String {
  /// The string with control characters (line breaks, NUL, ...) written as Swift escapes (`\n`, `\0`):
  /// names and keys read from a damaged file can hold them, and an error naming them stays one line.
  package var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return self }
    return unicodeScalars.map { scalar in
      scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
    }.joined()
  }
}
