import ARSim
import Combine
import Foundation

/// An image for materials (RealityKit's `TextureResource`): its size and its pixels, decoded from a PNG
/// or JPEG file. ARSim draws nothing; textures keep their pixels for the app (and `arsim render`) to
/// read. Immutable.
public final class TextureResource: Sendable, Hashable {
  /// The image's width, pixels.
  public let width: Int
  /// The image's height, pixels.
  public let height: Int
  /// The pixels: 8-bit R, G, B, row by row from the top (a file's alpha channel is not kept).
  public let image: RGBImage
  /// The file the texture was read from, or the name it was given.
  public let name: String

  /// A texture of `image`, named `name`.
  public init(image: RGBImage, name: String = "") {
    self.image = image
    width = image.width
    height = image.height
    self.name = name
  }

  /// Whether `lhs` and `rhs` are the same texture object.
  public static func == (lhs: TextureResource, rhs: TextureResource) -> Bool { lhs === rhs }
  /// Hashes the texture's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  /// What a texture is used for (RealityKit's `TextureResource.Semantic`); kept, not used.
  public enum Semantic: Sendable, Hashable {
    /// Colour data.
    case color
    /// Colour data encoded in high dynamic range.
    case hdrColor
    /// Non-colour data, such as normals or roughness.
    case raw
    /// Normal vectors.
    case normal
    /// Scalar data.
    case scalar
    /// Nothing said.
    case none
  }

  /// Whether mipmaps are allocated and generated (RealityKit's `TextureResource.MipmapsMode`); kept, not
  /// used: ARSim keeps the full-resolution pixels only.
  public enum MipmapsMode: Sendable, Hashable, Codable {
    /// No mipmaps.
    case none
    /// Memory for all mipmaps, not generated.
    case allocateAll
    /// All mipmaps, allocated and generated.
    case allocateAndGenerateAll
  }

  /// Options for making a texture (RealityKit's `TextureResource.CreateOptions`); kept, not used.
  public struct CreateOptions: Sendable, Hashable {
    /// What the texture holds.
    public var semantic: Semantic?
    /// Whether mipmaps are made.
    public var mipmapsMode: MipmapsMode
    /// Options with `semantic` and `mipmapsMode` (all mipmaps generated unless told otherwise).
    public init(semantic: Semantic?, mipmapsMode: MipmapsMode = .allocateAndGenerateAll) {
      self.semantic = semantic
      self.mipmapsMode = mipmapsMode
    }
  }

  /// The URL of the image resource `name` (with or without its extension) in `bundle` (the main bundle
  /// when nil): `.png`, `.jpg` and `.jpeg` are tried in turn for a name without one.
  static func url(named name: String, in bundle: Bundle?) throws -> URL {
    let bundle = bundle ?? .main
    let given = (name as NSString).pathExtension.lowercased()
    let known = ["png", "jpg", "jpeg"]
    let base = known.contains(given) ? (name as NSString).deletingPathExtension : name
    for fileExtension in known.contains(given) ? [given] : known {
      if let url = bundle.url(forResource: base, withExtension: fileExtension) { return url }
    }
    throw TextureError(file: name, problem: "no such image in the bundle at \(bundle.bundlePath)")
  }

  /// The texture of the PNG or JPEG file at `url`, as RealityKit's `load(contentsOf:withName:)`.
  /// - Throws: ``TextureError`` naming the file and the problem (unreadable, not a PNG or JPEG,
  ///   corrupt).
  public static func load(contentsOf url: URL, withName resourceName: String? = nil) throws -> TextureResource
  {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw TextureError(file: url.path, problem: "cannot be read (\(error.localizedDescription))")
    }
    let bytes = [UInt8](data)
    guard let format = ImageCodec.Format(magic: bytes), format != .exr else {
      throw TextureError(file: url.path, problem: "is not a PNG or JPEG image")
    }
    do {
      let image = try ImageCodec.decodeRGB(bytes)
      return TextureResource(
        image: image, name: resourceName ?? url.deletingPathExtension().lastPathComponent)
    } catch {
      throw TextureError(file: url.path, problem: "cannot be decoded (\(error))")
    }
  }

  /// The texture of the image `name` in `bundle`, as RealityKit's `load(named:in:)`.
  public static func load(named name: String, in bundle: Bundle? = nil) throws -> TextureResource {
    try load(contentsOf: try url(named: name, in: bundle))
  }

  /// The texture of the image `name` in `bundle`, loaded on a background queue and published on the
  /// main queue, as RealityKit's `loadAsync(named:in:)`.
  public static func loadAsync(named name: String, in bundle: Bundle? = nil) -> AnyPublisher<
    TextureResource, any Error
  > {
    loadAsync { try url(named: name, in: bundle) }
  }

  /// The texture of the image file at `url`, loaded in the background, as RealityKit's
  /// `loadAsync(contentsOf:withName:)`.
  public static func loadAsync(contentsOf url: URL, withName resourceName: String? = nil)
    -> AnyPublisher<TextureResource, any Error>
  {
    loadAsync { url }
  }

  private static func loadAsync(_ locate: @escaping @Sendable () throws -> URL) -> AnyPublisher<
    TextureResource, any Error
  > {
    Future { promise in
      let fulfil = Fulfil(promise)
      DispatchQueue.global(qos: .userInitiated).async {
        let result = Result { try load(contentsOf: try locate()) }
        DispatchQueue.main.async { fulfil.promise(result) }
      }
    }.eraseToAnyPublisher()
  }

  /// The promise handed to the queues (``Future`` serialises fulfilment).
  private struct Fulfil: @unchecked Sendable {
    let promise: Future<TextureResource, any Error>.Promise
    init(_ promise: @escaping Future<TextureResource, any Error>.Promise) { self.promise = promise }
  }

  /// The texture of the image `name` in `bundle`, read without blocking (RealityKit's async
  /// `init(named:in:)`).
  public convenience init(named name: String, in bundle: Bundle? = nil) async throws {
    let url = try Self.url(named: name, in: bundle)
    let loaded = try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        continuation.resume(with: Result { try Self.load(contentsOf: url) })
      }
    }
    self.init(image: loaded.image, name: loaded.name)
  }
}

/// Why a texture could not be loaded: the file and the problem.
public struct TextureError: Error, LocalizedError, CustomStringConvertible, Sendable {
  /// The file or resource name.
  public var file: String
  /// What is wrong with it.
  public var problem: String
  /// `file: problem`.
  public var description: String { "\(file): \(problem)" }
  /// `file: problem`.
  public var errorDescription: String? { description }
}

/// Material parameter types (RealityKit's `MaterialParameters`).
public enum MaterialParameters {
  /// A texture and how it is sampled (RealityKit's `MaterialParameters.Texture`).
  public struct Texture: Sendable, Hashable {
    /// The image.
    public var resource: TextureResource
    /// A texture of `resource`.
    public init(_ resource: TextureResource) { self.resource = resource }
  }
}

/// A colour or a texture (RealityKit 1's `MaterialColorParameter`).
public enum MaterialColorParameter: Sendable {
  /// One colour.
  case color(MaterialColor)
  /// An image.
  case texture(TextureResource)
}
