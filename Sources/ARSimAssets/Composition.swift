import Foundation

/// Where a stage's layers come from: the files of a USDZ archive, or files on disk.
struct LayerSource {
  private let archive: USDZArchive?
  /// The archive's name or the root layer's path, for error messages.
  let file: String
  private var cache: [String: Layer] = [:]

  init(archive: USDZArchive, file: String) {
    self.archive = archive
    self.file = file
  }

  init(file: String) {
    self.archive = nil
    self.file = file
  }

  /// The name errors use for a layer: `archive[member]` inside an archive, the path outside.
  func display(_ key: String) -> String { archive == nil ? key : "\(file)[\(key)]" }

  /// The key of the layer `asset` names from the layer `from` (relative paths resolve against its
  /// folder); the root layer's key when `from` is nil.
  func resolve(_ asset: String, from: String) throws(AssetError) -> String {
    if archive != nil {
      guard !asset.hasPrefix("/"), !asset.contains("[") else {
        throw AssetError(file: display(from), problem: "reference to '\(asset)' leaves the archive")
      }
      var parts = from.split(separator: "/").dropLast().map(String.init)
      for part in asset.split(separator: "/") {
        if part == ".." {
          guard !parts.isEmpty else {
            throw AssetError(file: display(from), problem: "reference to '\(asset)' leaves the archive")
          }
          parts.removeLast()
        } else if part != "." {
          parts.append(String(part))
        }
      }
      return parts.joined(separator: "/")
    }
    if asset.hasPrefix("/") { return URL(fileURLWithPath: asset).standardized.path }
    return URL(fileURLWithPath: from).deletingLastPathComponent().appendingPathComponent(asset).standardized
      .path
  }

  /// The parsed layer at `key`; `referencedFrom` names the layer that asked, for a missing layer.
  mutating func layer(_ key: String, referencedFrom: String?) throws(AssetError) -> Layer {
    if let layer = cache[key] { return layer }
    let bytes: [UInt8]
    if let archive {
      guard let entry = archive.entry(key) else {
        throw AssetError(
          file: display(referencedFrom ?? key),
          problem: "references '\(key)', which the archive does not hold")
      }
      bytes = archive.data(of: entry)
    } else {
      guard let data = FileManager.default.contents(atPath: key) else {
        throw AssetError(
          file: referencedFrom ?? key,
          problem: referencedFrom == nil ? "cannot be read" : "references '\(key)', which cannot be read")
      }
      bytes = [UInt8](data)
    }
    let layer = try Self.parse(bytes, file: display(key))
    cache[key] = layer
    return layer
  }

  /// A layer from its bytes, by its content: `PXR-USDC` is a crate, `#usda` text.
  static func parse(_ bytes: [UInt8], file: String) throws(AssetError) -> Layer {
    do {
      if bytes.starts(with: Array("PXR-USDC".utf8)) { return try CrateFile(bytes: bytes).layer() }
      if bytes.starts(with: Array("#usda".utf8)) { return try USDAParser.layer(bytes) }
    } catch let error as FormatError {
      throw error.in(file)
    } catch {
      throw AssetError(file: file, problem: "\(error)")
    }
    throw AssetError(
      file: file, problem: "neither a USDA layer (starting #usda) nor a USDC crate (starting PXR-USDC)")
  }
}

/// Composition of the arcs ARSim supports: references (to other layers of the same archive or folder,
/// or to a prim of the same layer), with the referencing prim's own opinions stronger than the
/// referenced ones and earlier references stronger than later ones. Sublayers, inherits, variants and
/// payloads are not composed.
struct Composer {
  var source: LayerSource

  /// Composes `spec` (from the layer `key`); `chain` is the reference chain that led here.
  mutating func compose(_ spec: PrimSpec, in key: String, chain: [String]) throws(AssetError) -> PrimSpec {
    guard chain.count < 64 else {
      throw AssetError(file: source.display(key), problem: "references are nested more than 64 deep")
    }
    var local = spec
    local.references = []
    local.children = []
    for child in spec.children { local.children.append(try compose(child, in: key, chain: chain)) }
    var weaker: PrimSpec?
    for reference in spec.references {
      let target = reference.assetPath.isEmpty ? key : try source.resolve(reference.assetPath, from: key)
      let layer = try source.layer(target, referencedFrom: key)
      guard let path = reference.primPath ?? layer.defaultPrim.map({ "/" + $0 }) else {
        throw AssetError(
          file: source.display(target), problem: "is referenced without a prim path and has no defaultPrim")
      }
      let link = "\(target)<\(path)>"
      if chain.contains(link) {
        let cycle = (chain.drop { $0 != link } + [link]).joined(separator: " -> ")
        throw AssetError(file: source.file, problem: "reference cycle: \(cycle)")
      }
      guard let referenced = layer.prim(at: path) else {
        throw AssetError(
          file: source.display(target), problem: "has no prim at \(path) (referenced from \(key))")
      }
      let composed = try compose(referenced, in: target, chain: chain + [link])
      weaker = weaker.map { Self.merge(stronger: $0, weaker: composed) } ?? composed
    }
    guard let weaker else { return local }
    var merged = Self.merge(stronger: local, weaker: weaker)
    merged.name = spec.name
    return merged
  }

  /// One prim's opinions over another's: attribute by attribute, child by child (by name).
  static func merge(stronger: PrimSpec, weaker: PrimSpec) -> PrimSpec {
    var result = weaker
    result.name = stronger.name
    if stronger.specifier != .over || weaker.specifier == .over { result.specifier = stronger.specifier }
    if !stronger.typeName.isEmpty { result.typeName = stronger.typeName }
    result.active = stronger.active && weaker.active
    for (name, attribute) in stronger.attributes {
      var merged = result.attributes[name] ?? AttributeSpec()
      if let value = attribute.value { merged.value = value }
      if !attribute.timeSamples.isEmpty { merged.timeSamples = attribute.timeSamples }
      result.attributes[name] = merged
    }
    for child in stronger.children {
      if let index = result.children.firstIndex(where: { $0.name == child.name }) {
        result.children[index] = merge(stronger: child, weaker: result.children[index])
      } else {
        result.children.append(child)
      }
    }
    return result
  }
}
