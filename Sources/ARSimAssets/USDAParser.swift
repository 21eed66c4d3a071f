import Foundation

/// USD's text layer format (`.usda`), parsed into a ``Layer``: layer metadata, prims (`def`, `over`,
/// `class`, with a type name and a quoted name), prim metadata (`references`, `active`; others are
/// skipped), attributes with default values and `.timeSamples`, and nested prims. Relationships,
/// connections and variant sets are parsed and skipped.
struct USDAParser {
  /// A value as written, before the attribute's type gives it a meaning.
  private indirect enum Raw {
    case number(Double, isInteger: Bool)
    case string(String)
    case asset(String)
    case path(String)
    case identifier(String)
    case list([Raw])
    case tuple([Raw])
    case dictionary
  }

  private let tokens: [USDAToken]
  private var at = 0

  /// Parses a whole layer.
  static func layer(_ bytes: [UInt8]) throws -> Layer {
    var parser = USDAParser(tokens: try USDATokenizer.tokens(bytes))
    return try parser.parseLayer()
  }

  private init(tokens: [USDAToken]) { self.tokens = tokens }

  // MARK: Token access

  private var line: Int { at < tokens.count ? tokens[at].line : (tokens.last?.line ?? 1) }

  private func fail(_ problem: String) -> FormatError { FormatError("line \(line): \(problem)") }

  private func peek(_ ahead: Int = 0) -> USDAToken? { at + ahead < tokens.count ? tokens[at + ahead] : nil }

  private mutating func next(_ what: String) throws -> USDAToken {
    guard at < tokens.count else { throw fail("the layer ends where \(what) was expected") }
    at += 1
    return tokens[at - 1]
  }

  private mutating func expect(_ punctuation: String) throws {
    let token = try next("'\(punctuation)'")
    guard token.is(punctuation) else {
      at -= 1
      throw fail("expected '\(punctuation)', found '\(token.text)'")
    }
  }

  private mutating func accept(_ punctuation: String) -> Bool {
    guard let token = peek(), token.is(punctuation) else { return false }
    at += 1
    return true
  }

  // MARK: Structure

  private mutating func parseLayer() throws -> Layer {
    var layer = Layer()
    if accept("(") {
      try parseMetadata { key, value, _ in layer.metadata[key] = Self.metadataValue(value) }
    }
    while let token = peek() {
      guard token.kind == .identifier, ["def", "over", "class"].contains(token.text) else {
        throw fail("expected a prim ('def', 'over' or 'class'), found '\(token.text)'")
      }
      layer.roots.append(try parsePrim(depth: 0))
    }
    return layer
  }

  /// `( entry* )` after the opening parenthesis: strings (documentation) and `[listop] key = value`.
  private mutating func parseMetadata(_ handle: (String, Raw, String?) throws -> Void) throws {
    while !accept(")") {
      let token = try next("metadata")
      if token.kind == .string || token.is(";") { continue }
      guard token.kind == .identifier else { throw fail("unexpected '\(token.text)' in metadata") }
      var key = token.text
      var listOp: String?
      if ["prepend", "append", "add", "delete", "reorder"].contains(key), peek()?.kind == .identifier {
        listOp = key
        key = try next("a metadata key").text
      }
      if key == "dictionary" || peek()?.kind == .identifier {  // a typed entry: `dictionary name = {...}`
        key = try next("a metadata key").text
      }
      try expect("=")
      let value = try parseValue()
      try handle(key, value, listOp)
    }
  }

  private mutating func parsePrim(depth: Int) throws -> PrimSpec {
    guard depth < 256 else { throw fail("prims are nested more than 256 deep") }
    let specifier = USDSpecifier(rawValue: try next("a specifier").text) ?? .over
    var typeName = ""
    if peek()?.kind == .identifier { typeName = try next("a type name").text }
    let name = try next("a prim name")
    guard name.kind == .string, !name.text.isEmpty else { throw fail("expected the prim's quoted name") }
    var prim = PrimSpec(name: name.text)
    prim.specifier = specifier
    prim.typeName = typeName
    if accept("(") {
      var references: [Raw] = []
      var active = true
      try parseMetadata { key, value, listOp in
        if key == "references", listOp != "delete" { references.append(value) }
        if key == "active", case .identifier(let flag) = value { active = flag != "false" }
      }
      prim.references = try references.flatMap { try Self.references($0, line: line) }
      prim.active = active
    }
    try expect("{")
    while !accept("}") {
      guard let token = peek() else { throw fail("the prim '\(prim.name)' is not closed with '}'") }
      if token.kind == .identifier, ["def", "over", "class"].contains(token.text) {
        prim.children.append(try parsePrim(depth: depth + 1))
      } else if token.kind == .identifier, token.text == "variantSet" {
        at += 1
        _ = try next("a variant set name")
        try expect("=")
        try skipBraces()
      } else if token.is(";") {
        at += 1
      } else {
        try parseProperty(into: &prim)
      }
    }
    return prim
  }

  /// `[custom] [uniform|varying] type[[]] name[.timeSamples|.connect] [= value] [( metadata )]`, or a
  /// relationship (`rel name [= targets]`).
  private mutating func parseProperty(into prim: inout PrimSpec) throws {
    var word = try next("a property")
    while word.kind == .identifier,
      ["custom", "uniform", "varying", "config", "prepend", "append", "add", "delete"].contains(word.text)
    {
      word = try next("a property type")
    }
    guard word.kind == .identifier else { throw fail("expected a property, found '\(word.text)'") }
    let isRelationship = word.text == "rel"
    var type = word.text
    if accept("[") {
      try expect("]")
      type += "[]"
    }
    let nameToken = try next("a property name")
    guard nameToken.kind == .identifier else {
      throw fail("expected a property name, found '\(nameToken.text)'")
    }
    var name = nameToken.text
    var samples = false
    var skip = isRelationship
    if name.hasSuffix(".timeSamples") {
      name.removeLast(".timeSamples".count)
      samples = true
    } else if name.hasSuffix(".connect") || name.hasSuffix(".spline") {
      skip = true
    }
    var attribute = prim.attributes[name] ?? AttributeSpec()
    if accept("=") {
      if samples {
        try expect("{")
        while !accept("}") {
          let time = try next("a sample time")
          guard time.kind == .number, let t = Double(time.text) else { throw fail("expected a sample time") }
          try expect(":")
          let raw = try parseValue()
          if let value = try Self.typed(raw, type: type, line: line) {
            attribute.timeSamples.append((t, value))
          }
          _ = accept(",")
        }
      } else {
        let raw = try parseValue()
        if !skip { attribute.value = try Self.typed(raw, type: type, line: line) }
      }
    }
    if accept("(") { try parseMetadata { _, _, _ in } }
    if !skip { prim.attributes[name] = attribute }
  }

  private mutating func skipBraces() throws {
    try expect("{")
    var depth = 1
    while depth > 0 {
      let token = try next("'}'")
      if token.is("{") { depth += 1 }
      if token.is("}") { depth -= 1 }
    }
  }

  // MARK: Values

  private mutating func parseValue() throws -> Raw {
    let token = try next("a value")
    switch token.kind {
    case .number:
      guard let value = Double(token.text) else { throw fail("'\(token.text)' is not a number") }
      return .number(value, isInteger: !token.text.contains(where: { ".eEn".contains($0) }))
    case .string: return .string(token.text)
    case .asset:
      // A reference's asset may be followed by a prim path and a layer offset.
      if peek()?.kind == .path {
        let path = try next("a path").text
        if accept("(") { try parseMetadata { _, _, _ in } }
        return .list([.asset(token.text), .path(path)])
      }
      if accept("(") { try parseMetadata { _, _, _ in } }
      return .asset(token.text)
    case .path: return .path(token.text)
    case .identifier:
      switch token.text {
      case "inf": return .number(.infinity, isInteger: false)
      case "nan": return .number(.nan, isInteger: false)
      default: return .identifier(token.text)
      }
    case .punctuation:
      switch token.text {
      case "[", "(":
        let close = token.text == "[" ? "]" : ")"
        var items: [Raw] = []
        while !accept(close) {
          items.append(try parseValue())
          if !accept(",") {
            try expect(close)
            break
          }
        }
        return token.text == "[" ? .list(items) : .tuple(items)
      case "{":
        at -= 1
        try skipBraces()
        return .dictionary
      default: throw fail("unexpected '\(token.text)' where a value was expected")
      }
    }
  }

  private static func metadataValue(_ raw: Raw) -> USDValue {
    switch raw {
    case .number(let value, _): .double(value)
    case .string(let text), .identifier(let text): .token(text)
    case .asset(let text): .asset(text)
    default: .other("metadata")
    }
  }

  private static func references(_ raw: Raw, line: Int) throws -> [LayerReference] {
    switch raw {
    case .asset(let asset): return [LayerReference(assetPath: asset, primPath: nil)]
    case .path(let path): return [LayerReference(assetPath: "", primPath: path)]
    case .identifier("None"): return []
    case .list(let items):
      if items.count == 2, case .asset(let asset) = items[0], case .path(let path) = items[1] {
        return [LayerReference(assetPath: asset, primPath: path)]
      }
      return try items.flatMap { try references($0, line: line) }
    default: throw FormatError("line \(line): a reference must be an asset path and an optional prim path")
    }
  }

  /// The value `raw` means for an attribute of `type` (nil for `None`, a blocked value).
  private static func typed(_ raw: Raw, type: String, line: Int) throws -> USDValue? {
    func numbers(_ items: [Raw]) throws -> [Double] {
      try items.flatMap { item -> [Double] in
        switch item {
        case .number(let value, _): return [value]
        case .tuple(let inner): return try numbers(inner)
        case .identifier("true"): return [1]
        case .identifier("false"): return [0]
        default: throw FormatError("line \(line): expected numbers in a value of type \(type)")
        }
      }
    }
    if case .identifier("None") = raw { return nil }
    let base = type.hasSuffix("[]") ? String(type.dropLast(2)) : type
    if type.hasSuffix("[]") {
      guard case .list(let items) = raw else {
        throw FormatError("line \(line): a \(type) value must be a list")
      }
      switch base {
      case "token", "string":
        return .tokens(items.compactMap { if case .string(let s) = $0 { s } else { nil } })
      case "asset": return .tokens(items.compactMap { if case .asset(let s) = $0 { s } else { nil } })
      default:
        guard case .tuple(let first)? = items.first else { return .numbers(try numbers(items)) }
        let values = try numbers(items)
        guard !first.isEmpty, values.count == first.count * items.count else {
          throw FormatError("line \(line): the tuples of a \(type) value differ in size")
        }
        return .tuples(width: first.count, values)
      }
    }
    switch raw {
    case .number(let value, let isInteger):
      if isInteger, ["int", "uint", "int64", "uint64", "uchar"].contains(base), let int = Int(exactly: value)
      {
        return .int(int)
      }
      return .double(value)
    case .identifier("true"): return .bool(true)
    case .identifier("false"): return .bool(false)
    case .string(let text): return .token(text)
    case .asset(let text): return .asset(text)
    case .tuple(let items): return .tuple(try numbers(items))
    default: return .other(type)
    }
  }
}
