/// A value of a USD attribute or metadata field, as far as ARSim decodes them.
///
/// Vectors, quaternions and matrices are flat tuples of doubles: a quaternion is (real, i, j, k) as
/// USDA writes it, a matrix is its 16 elements row by row (USD's row-vector convention: the translation
/// is in the last row).
public enum USDValue: Sendable, Equatable {
  /// A `bool`.
  case bool(Bool)
  /// Any integer type.
  case int(Int)
  /// Any floating-point scalar (`half`, `float`, `double`, `timecode`).
  case double(Double)
  /// A `token` or `string`.
  case token(String)
  /// An asset path (`@path@`), as written.
  case asset(String)
  /// A vector, quaternion or matrix.
  case tuple([Double])
  /// A `token[]` or `string[]`.
  case tokens([String])
  /// An array of scalars.
  case numbers([Double])
  /// An array of vectors (`point3f[]`, `float3[]`, ...), `width` components each, flattened.
  case tuples(width: Int, [Double])
  /// A value ARSim does not decode, named by its type.
  case other(String)

  /// The value as a number, if it is a scalar.
  var number: Double? {
    switch self {
    case .double(let value): value
    case .int(let value): Double(value)
    case .bool(let value): value ? 1 : 0
    default: nil
    }
  }

  /// The value as a token or string, if it is one.
  var string: String? {
    switch self {
    case .token(let value), .asset(let value): value
    default: nil
    }
  }
}

/// How a prim spec takes part in composition: USD's `SdfSpecifier`.
public enum USDSpecifier: String, Sendable, Equatable {
  /// `def`: defines the prim.
  case def
  /// `over`: only adds opinions to a prim defined elsewhere.
  case over
  /// `class`: an abstract prim, not part of the scene unless something inherits it.
  case `class`
}

/// One attribute's opinions in one layer: a default value and time samples.
struct AttributeSpec: Sendable {
  var value: USDValue?
  var timeSamples: [(time: Double, value: USDValue)] = []
}

/// A reference arc: an asset path (empty for the same layer) and an optional prim path (the target
/// layer's `defaultPrim` when nil).
struct LayerReference: Sendable, Equatable {
  var assetPath: String
  var primPath: String?
}

/// One prim's opinions in one layer.
struct PrimSpec: Sendable {
  var name: String
  var specifier: USDSpecifier = .over
  var typeName: String = ""
  var attributes: [String: AttributeSpec] = [:]
  var references: [LayerReference] = []
  var active = true
  var children: [PrimSpec] = []

  init(name: String) { self.name = name }

  /// The child named `name`, if this spec has one.
  func child(_ name: String) -> PrimSpec? { children.first { $0.name == name } }
}

/// A parsed layer (one `.usda` or `.usdc` file): stage metadata and the root prim specs, in order.
struct Layer: Sendable {
  var metadata: [String: USDValue] = [:]
  var roots: [PrimSpec] = []

  /// The prim spec at an absolute path (`/A/B`), if the layer has one.
  func prim(at path: String) -> PrimSpec? {
    let names = path.split(separator: "/").map(String.init)
    guard let first = names.first, var spec = roots.first(where: { $0.name == first }) else { return nil }
    for name in names.dropFirst() {
      guard let child = spec.child(name) else { return nil }
      spec = child
    }
    return spec
  }

  /// The layer's `defaultPrim` metadata, if set.
  var defaultPrim: String? { metadata["defaultPrim"]?.string }
}
