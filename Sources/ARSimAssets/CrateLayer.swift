/// A crate file's specs assembled into a ``Layer``.
extension CrateFile {
  /// The layer the crate's specs describe: pseudo-root metadata, prims in `primChildren` order, and
  /// the attributes' default values and time samples. Variant specs are skipped.
  func layer() throws -> Layer {
    var layer = Layer()
    var prims: [Int: PrimSpec] = [:]
    var attributes: [Int: [String: AttributeSpec]] = [:]
    var childOrder: [Int: [String]] = [:]
    var children: [Int: [Int]] = [:]
    var root = -1
    for spec in specs {
      let element = paths[spec.path]
      switch spec.type {
      case 7:  // pseudo-root: the layer's metadata
        root = spec.path
        for (name, rep) in fields(ofSet: spec.fieldSet) {
          if name == "primChildren" {
            if case .tokens(let names) = try value(rep) { childOrder[spec.path] = names }
          } else {
            layer.metadata[name] = try value(rep)
          }
        }
      case 6 where !element.name.hasPrefix("{"):
        var prim = PrimSpec(name: element.name)
        for (name, rep) in fields(ofSet: spec.fieldSet) {
          switch name {
          case "specifier":
            prim.specifier = USDSpecifier(rawValue: try value(rep).string ?? "") ?? .over
          case "typeName": prim.typeName = try value(rep).string ?? ""
          case "active": if case .bool(let active) = try value(rep) { prim.active = active }
          case "references": prim.references = try references(rep)
          case "primChildren": if case .tokens(let names) = try value(rep) { childOrder[spec.path] = names }
          default: break
          }
        }
        prims[spec.path] = prim
        children[element.parent, default: []].append(spec.path)
      case 1 where element.isProperty:
        var attribute = AttributeSpec()
        for (name, rep) in fields(ofSet: spec.fieldSet) {
          if name == "default" { attribute.value = try value(rep) }
          if name == "timeSamples" { attribute.timeSamples = try timeSamples(rep) }
        }
        attributes[element.parent, default: [:]][element.name] = attribute
      default: break
      }
    }
    guard root >= 0 else { throw FormatError("the crate has no pseudo-root spec") }
    func build(_ index: Int, depth: Int) throws -> [PrimSpec] {
      guard depth < 256 else { throw FormatError("prims are nested more than 256 deep") }
      var result: [PrimSpec] = []
      for child in children[index] ?? [] {
        guard var prim = prims[child] else { continue }
        prim.attributes = attributes[child] ?? [:]
        prim.children = try build(child, depth: depth + 1)
        result.append(prim)
      }
      if let order = childOrder[index] {
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        result.sort { (rank[$0.name] ?? Int.max) < (rank[$1.name] ?? Int.max) }
      }
      return result
    }
    layer.roots = try build(root, depth: 0)
    return layer
  }
}
