import Synchronization

/// A value computed the first time it is read, once, from any thread; what the computation
/// captured is released once it has run.
package final class LazyValue<Value: Sendable>: Sendable {
  private enum State {
    case pending(@Sendable () -> Value)
    case ready(Value)
  }

  private let state: Mutex<State>

  /// A value that `make` computes when first read.
  package init(_ make: @escaping @Sendable () -> Value) {
    state = Mutex(.pending(make))
  }

  /// The value, computed on the first read (readers on other threads wait for it).
  package var value: Value {
    state.withLock { state in
      switch state {
      case .ready(let value):
        return value
      case .pending(let make):
        let value = make()
        state = .ready(value)
        return value
      }
    }
  }

  /// Whether the value has been computed.
  package var isReady: Bool {
    state.withLock { state in
      if case .ready = state { return true }
      return false
    }
  }
}

/// A frame's image file decoded the first time it is read, so that it costs nothing until an app or
/// a tool reads `ARFrame.capturedImage`: its colour (``DeferredColorImage``, see
/// ``FrameSourceOptions/decodeColor``), or its full grey image when the reader decoded it reduced for
/// tracking (``DeferredGrayImage``, see ``FrameSourceOptions/trackingMaxSide``).
public final class DeferredImage<Image: Sendable>: Sendable {
  /// The image file the image comes from.
  public let path: String
  private let decoded: LazyValue<Image?>

  init(path: String, decode: @escaping @Sendable () -> Image?) {
    self.path = path
    decoded = LazyValue(decode)
  }

  /// The image, decoded on first read; nil only if the file, which the reader decoded once (in grey,
  /// or reduced), cannot be decoded so.
  public var image: Image? { decoded.value }

  /// Whether ``image`` has been read (and so decoded).
  package var isDecoded: Bool { decoded.isReady }
}

/// The colour of a frame's image file, the same size as its grey image.
public typealias DeferredColorImage = DeferredImage<RGBImage>
/// The full grey image of a frame's JPEG whose reduced version the reader decoded for tracking.
public typealias DeferredGrayImage = DeferredImage<GrayImage>

extension DeferredImage where Image == RGBImage {
  /// The colour of the image file `path`, whose bytes are `bytes` (already checked and decoded as grey
  /// once, so they are a valid PNG or JPEG).
  package convenience init(path: String, bytes: [UInt8]) {
    self.init(path: path) { try? ImageCodec.decodeRGB(bytes) }
  }
}

extension DeferredImage where Image == GrayImage {
  /// The full grey image of the file `path`, whose bytes are `bytes` (already decoded reduced once, so
  /// they are a valid JPEG).
  package convenience init(path: String, bytes: [UInt8]) {
    self.init(path: path) { try? ImageCodec.decodeGray(bytes) }
  }
}

extension CapturedImage {
  /// What an app sees of an image read as `image` with its colour in `color` (when deferred): the
  /// colour, decoded on first read, else `image` (also when the colour cannot be decoded).
  package static func seen(_ image: CapturedImage?, color: DeferredColorImage?) -> CapturedImage? {
    if let rgb = color?.image { return .rgb(rgb) }
    return image
  }
}
