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

/// A frame's image file in grey at its full size, decoded the first time it is read: the reader
/// decoded it reduced for tracking (``FrameSourceOptions/trackingMaxSide``), so the full image costs
/// nothing until an app or a tool reads `ARFrame.capturedImage` or ``RecordedFrame/image``.
public final class DeferredGrayImage: Sendable {
  /// The image file the image comes from.
  public let path: String
  private let decoded: LazyValue<GrayImage?>

  /// The full grey image of the file `path`, whose bytes are `bytes` (already decoded reduced once, so
  /// they are a valid JPEG).
  package init(path: String, bytes: [UInt8]) {
    self.path = path
    decoded = LazyValue { try? ImageCodec.decodeGray(bytes) }
  }

  /// The grey image, decoded on first read; nil only if the file, which decoded reduced, cannot be
  /// decoded in full.
  public var image: GrayImage? { decoded.value }

  /// Whether ``image`` has been read (and so decoded).
  package var isDecoded: Bool { decoded.isReady }
}

/// The colour of a frame's image file, decoded the first time it is read: tracking needs only
/// the grey image, so colour costs nothing until an app or `arsim render` reads
/// `ARFrame.capturedImage` (see ``FrameSourceOptions/decodeColor``).
public final class DeferredColorImage: Sendable {
  /// The image file the colour comes from.
  public let path: String
  private let decoded: LazyValue<RGBImage?>

  /// The colour of the image file `path`, whose bytes are `bytes` (already checked and decoded
  /// as grey once, so they are a valid PNG or JPEG).
  package init(path: String, bytes: [UInt8]) {
    self.path = path
    decoded = LazyValue { try? ImageCodec.decodeRGB(bytes) }
  }

  /// The colour image, decoded on first read (the same size as the grey image decoded from the
  /// same file); nil only if the file, which decoded as grey, cannot be decoded as colour.
  public var image: RGBImage? { decoded.value }

  /// Whether ``image`` has been read (and so decoded).
  package var isDecoded: Bool { decoded.isReady }
}

extension CapturedImage {
  /// What an app sees of an image read as `image` with its colour in `color` (when deferred): the
  /// colour, decoded on first read, else `image` (also when the colour cannot be decoded).
  package static func seen(_ image: CapturedImage?, color: DeferredColorImage?) -> CapturedImage? {
    if let rgb = color?.image { return .rgb(rgb) }
    return image
  }
}
