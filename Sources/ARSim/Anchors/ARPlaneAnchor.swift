import Foundation

/// A flat surface found by plane detection, with ARKit's names and semantics (`ARPlaneAnchor`).
///
/// Anchor space (ARSim follows ARKit and ARCHITECTURE.md): the y axis is the plane's normal, pointing up
/// for horizontal planes and towards the side the camera saw for vertical ones; the plane spans the
/// anchor's x and z axes. For a vertical plane the x axis is horizontal (to the right as seen from the
/// camera side) and z points down. ``transform`` is fixed when the plane is first detected and never
/// changes; as more of the surface is seen, ``center``, ``planeExtent`` and ``geometry`` (all in anchor
/// space) grow and move instead.
///
/// The y components of ``center`` and of the geometry's vertices hold the refined height of the surface
/// in anchor space: 0 at detection, then typically within a few millimetres of 0 as the least-squares
/// fit improves while the transform stays fixed. (A vertical plane's refined direction may also tilt the
/// boundary very slightly out of the anchor's x-z plane.) Anchor-space values are rounded to the
/// micrometre.
///
/// Each update is a new object with the same ``ARAnchor/identifier``.
///
/// `@unchecked Sendable` is restated from ``ARAnchor`` (Swift requires it of subclasses): the class is
/// final and every property it adds is an immutable `let` of a `Sendable` type.
public final class ARPlaneAnchor: ARAnchor, @unchecked Sendable {
  /// Whether a plane is horizontal or vertical with respect to gravity (ARKit's
  /// `ARPlaneAnchor.Alignment`).
  public enum Alignment: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Perpendicular to gravity: floors, tables, seats, ceilings.
    case horizontal = 0
    /// Parallel to gravity: walls, doors, windows.
    case vertical = 1

    /// `"horizontal"` or `"vertical"`, as the CLI's events file writes it.
    public var description: String {
      switch self {
      case .horizontal: return "horizontal"
      case .vertical: return "vertical"
      }
    }
  }

  /// What kind of surface a plane is (ARKit's `ARPlaneAnchor.Classification`). ARSim classifies from
  /// orientation and height alone; see `PlaneDetectionOptions` for the rules. It never reports
  /// `.window` or `.door`.
  public enum Classification: Sendable, Hashable, CustomStringConvertible {
    /// Why a plane has no classification (ARKit's `ARPlaneAnchor.Classification.Status`).
    public enum Status: Int, Sendable, Hashable, Codable {
      /// Classification is not available.
      case notAvailable = 0
      /// Classification has not finished yet (for example, the height of the floor is not known).
      case undetermined = 1
      /// Classification finished without a conclusive answer.
      case unknown = 2
    }

    /// No classification, for the reason given.
    case none(Status)
    /// A wall.
    case wall
    /// The floor.
    case floor
    /// A ceiling.
    case ceiling
    /// A table top.
    case table
    /// A seat.
    case seat
    /// A window.
    case window
    /// A door.
    case door

    /// The lower-case name the CLI's events file writes: `"none"`, `"wall"`, `"floor"`, `"ceiling"`,
    /// `"table"`, `"seat"`, `"window"` or `"door"`.
    public var description: String {
      switch self {
      case .none: return "none"
      case .wall: return "wall"
      case .floor: return "floor"
      case .ceiling: return "ceiling"
      case .table: return "table"
      case .seat: return "seat"
      case .window: return "window"
      case .door: return "door"
      }
    }
  }

  /// Whether the device can classify planes. ARSim always can (from orientation and height).
  public static var isClassificationSupported: Bool { true }

  /// Horizontal or vertical.
  public let alignment: Alignment

  /// The centre of the plane's extent rectangle in anchor space, metres. `(0, 0, 0)` when the plane is
  /// first detected; it moves as the plane grows (the transform does not).
  public let center: simd_float3

  /// The plane's estimated size and the rotation of its extent rectangle about the anchor's y axis.
  public let planeExtent: ARPlaneExtent

  /// The plane's estimated shape: a convex polygon and its triangulation, in anchor space.
  public let geometry: ARPlaneGeometry

  /// What kind of surface the plane is.
  public let classification: Classification

  /// The extent's width and height in metres as `(width, 0, height)` (ARKit deprecated this in iOS 16
  /// in favour of ``planeExtent``; kept for porting older code). The rectangle is rotated by
  /// `planeExtent.rotationOnYAxis` about the anchor's y axis, which this vector does not show.
  public var extent: simd_float3 { simd_float3(planeExtent.width, 0, planeExtent.height) }

  /// A plane anchor with every property given (for the plane detector, and for tests that need a plane
  /// of known shape).
  /// - Parameters:
  ///   - transform: anchor to world, metres; the y axis is the plane normal.
  ///   - center, planeExtent, geometry: in anchor space, metres.
  package init(
    identifier: UUID, transform: simd_float4x4, alignment: Alignment, center: simd_float3,
    planeExtent: ARPlaneExtent, geometry: ARPlaneGeometry, classification: Classification,
    sessionIdentifier: UUID?
  ) {
    self.alignment = alignment
    self.center = center
    self.planeExtent = planeExtent
    self.geometry = geometry
    self.classification = classification
    super.init(identifier: identifier, name: nil, transform: transform, sessionIdentifier: sessionIdentifier)
  }

  /// A copy of `anchor`. When `anchor` is not a plane anchor the copy is a horizontal plane of zero
  /// size at its origin, unclassified (`.none(.undetermined)`).
  public required init(anchor: ARAnchor) {
    if let plane = anchor as? ARPlaneAnchor {
      alignment = plane.alignment
      center = plane.center
      planeExtent = plane.planeExtent
      geometry = plane.geometry
      classification = plane.classification
    } else {
      alignment = .horizontal
      center = .zero
      planeExtent = ARPlaneExtent(width: 0, height: 0, rotationOnYAxis: 0)
      geometry = ARPlaneGeometry(boundary: [])
      classification = .none(.undetermined)
    }
    super.init(anchor: anchor)
  }

  /// A short description: identifier, alignment, classification, centre and extent.
  public override var description: String {
    let p = transform.columns.3
    return "<ARPlaneAnchor identifier=\(identifier) \(alignment) \(classification)"
      + " position=(\(p.x), \(p.y), \(p.z)) center=(\(center.x), \(center.y), \(center.z))"
      + " extent=\(planeExtent.width)x\(planeExtent.height)>"
  }
}

/// The size of a detected plane and the orientation of its extent rectangle, ARKit's `ARPlaneExtent`.
///
/// The rectangle lies in the anchor's x-z plane, centred on the anchor's `center`. `width` is measured
/// along the anchor's x axis rotated by ``rotationOnYAxis`` about its y axis, `height` along the rotated
/// z axis. As in ARKit since iOS 16 the anchor's transform does not rotate; apply the angle to the
/// extent geometry instead.
public final class ARPlaneExtent: Sendable, CustomStringConvertible {
  /// The rectangle's size along the rotated x axis, metres.
  public let width: Float
  /// The rectangle's size along the rotated z axis, metres.
  public let height: Float
  /// The rectangle's rotation about the anchor's y axis in radians, counter-clockwise seen from +y
  /// (the right-hand rule about y), in `(−π/4, π/4]`.
  public let rotationOnYAxis: Float

  /// An extent from its size (metres) and rotation about the anchor's y axis (radians).
  public init(width: Float, height: Float, rotationOnYAxis: Float) {
    self.width = width
    self.height = height
    self.rotationOnYAxis = rotationOnYAxis
  }

  /// `"<width>x<height> rotated <angle> rad"`.
  public var description: String { "\(width)x\(height) rotated \(rotationOnYAxis) rad" }
}

/// The shape of a detected plane as a mesh, ARKit's `ARPlaneGeometry`.
///
/// Everything is in anchor space, metres. As in ARKit the shape is convex: ``boundaryVertices`` is the
/// convex boundary polygon, counter-clockwise seen from the anchor's +y side (the normal's side), without
/// repetition. ``vertices`` are the same points and ``triangleIndices`` a fan over them, each triangle
/// counter-clockwise seen from +y.
public final class ARPlaneGeometry: Sendable {
  /// The mesh vertices in anchor space, metres.
  public let vertices: [simd_float3]
  /// Per vertex, texture coordinates in `[0, 1]`: `u` along the anchor's x axis and `v` along its z
  /// axis across the axis-aligned bounding box of the vertices (an ARSim choice; ARKit does not
  /// document its mapping).
  public let textureCoordinates: [simd_float2]
  /// The number of triangles, `triangleIndices.count / 3`.
  public let triangleCount: Int
  /// Three indices into ``vertices`` per triangle.
  public let triangleIndices: [Int16]
  /// The boundary polygon in anchor space, metres, counter-clockwise seen from +y.
  public let boundaryVertices: [simd_float3]

  /// The number of vertices.
  public var vertexCount: Int { vertices.count }
  /// The number of texture coordinates (one per vertex).
  public var textureCoordinateCount: Int { textureCoordinates.count }
  /// The number of boundary vertices.
  public var boundaryVertexCount: Int { boundaryVertices.count }

  /// The geometry of a convex polygon given in anchor space (metres), counter-clockwise seen from +y,
  /// at most `Int16.max` vertices (a precondition). Fewer than three vertices give no triangles.
  package init(boundary: [simd_float3]) {
    precondition(boundary.count <= Int(Int16.max), "a plane boundary needs at most 32767 vertices")
    boundaryVertices = boundary
    vertices = boundary
    var indices: [Int16] = []
    if boundary.count >= 3 {
      indices.reserveCapacity(3 * (boundary.count - 2))
      for i in 1..<(boundary.count - 1) {
        indices.append(0)
        indices.append(Int16(i))
        indices.append(Int16(i + 1))
      }
    }
    triangleIndices = indices
    triangleCount = indices.count / 3
    if let first = boundary.first {
      var low = SIMD2(first.x, first.z)
      var high = low
      for v in boundary {
        low = pointwiseMin(low, SIMD2(v.x, v.z))
        high = pointwiseMax(high, SIMD2(v.x, v.z))
      }
      let size = high - low
      textureCoordinates = boundary.map { v in
        SIMD2(
          size.x > 0 ? (v.x - low.x) / size.x : 0,
          size.y > 0 ? (v.z - low.y) / size.y : 0)
      }
    } else {
      textureCoordinates = []
    }
  }
}
