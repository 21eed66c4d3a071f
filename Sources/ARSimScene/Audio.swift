import ARSim
import Combine
import Foundation

// RealityKit's audio, without sound: Linux has no output here, so resources are read for their length
// (from the WAV, AIFF or MPEG-4 header) and playbacks advance on the recording clock with their
// entity's scene, ending (completion handler, AudioEvents.PlaybackCompleted) at the end of the clip.

/// Audio an entity can play (RealityKit's `AudioResource`). Immutable.
public class AudioResource: @unchecked Sendable {
  /// How the sound is placed (RealityKit's `AudioResource.InputMode`).
  public enum InputMode: Sendable, Hashable {
    /// From the entity's position.
    case spatial
    /// Without position or direction.
    case nonSpatial
    /// From a direction, without distance.
    case ambient
  }

  /// The clip's name (its file name without extension).
  public let name: String
  /// The clip's length, seconds.
  public let duration: TimeInterval
  /// How it is placed.
  public let inputMode: InputMode
  /// Whether it plays again from the start when it ends.
  public let shouldLoop: Bool

  init(name: String, duration: TimeInterval, inputMode: InputMode, shouldLoop: Bool) {
    self.name = name
    self.duration = duration
    self.inputMode = inputMode
    self.shouldLoop = shouldLoop
  }
}

/// Audio from a file (RealityKit's `AudioFileResource`): WAV, AIFF or MPEG-4 audio (`.m4a`, `.mp4`,
/// `.aac` in an MPEG-4 container), read for its length.
public final class AudioFileResource: AudioResource, @unchecked Sendable {
  /// When the file is read (RealityKit's `AudioFileResource.LoadingStrategy`); ARSim reads the header
  /// either way.
  public enum LoadingStrategy: Sendable, Hashable {
    /// Read before playing.
    case preload
    /// Read while playing.
    case stream
  }

  /// The file the clip came from.
  public let url: URL

  init(url: URL, duration: TimeInterval, inputMode: InputMode, shouldLoop: Bool) {
    self.url = url
    super.init(
      name: url.deletingPathExtension().lastPathComponent, duration: duration, inputMode: inputMode,
      shouldLoop: shouldLoop)
  }

  /// The audio file at `url` (RealityKit's `load(contentsOf:withName:inputMode:loadingStrategy:shouldLoop:)`).
  /// - Throws: ``AudioError`` naming the file: unreadable, not WAV/AIFF/MPEG-4, or a header without a
  ///   length.
  public static func load(
    contentsOf url: URL, withName resourceName: String? = nil, inputMode: InputMode = .spatial,
    loadingStrategy: LoadingStrategy = .preload, shouldLoop: Bool = false
  ) throws -> AudioFileResource {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw AudioError(file: url.path, problem: "cannot be read (\(error.localizedDescription))")
    }
    let duration = try AudioHeader.duration(of: [UInt8](data), file: url.path)
    return AudioFileResource(url: url, duration: duration, inputMode: inputMode, shouldLoop: shouldLoop)
  }

  /// The audio file `name` (with or without extension: `.wav`, `.aiff`, `.aif`, `.m4a`, `.mp4`, `.caf`
  /// are tried) in `bundle` (the main bundle when nil), as RealityKit's
  /// `load(named:in:inputMode:loadingStrategy:shouldLoop:)`.
  public static func load(
    named name: String, in bundle: Bundle? = nil, inputMode: InputMode = .spatial,
    loadingStrategy: LoadingStrategy = .preload, shouldLoop: Bool = false
  ) throws -> AudioFileResource {
    let bundle = bundle ?? .main
    let known = ["wav", "aiff", "aif", "m4a", "mp4", "caf"]
    let given = (name as NSString).pathExtension.lowercased()
    let base = known.contains(given) ? (name as NSString).deletingPathExtension : name
    for fileExtension in known.contains(given) ? [given] : known {
      if let url = bundle.url(forResource: base, withExtension: fileExtension) {
        return try load(
          contentsOf: url, inputMode: inputMode, loadingStrategy: loadingStrategy, shouldLoop: shouldLoop)
      }
    }
    throw AudioError(file: name, problem: "no such audio file in the bundle at \(bundle.bundlePath)")
  }

  /// Loads the audio file `name` in the background and publishes it on the main queue (RealityKit's
  /// `loadAsync(named:in:inputMode:loadingStrategy:shouldLoop:)`).
  public static func loadAsync(
    named name: String, in bundle: Bundle? = nil, inputMode: InputMode = .spatial,
    loadingStrategy: LoadingStrategy = .preload, shouldLoop: Bool = false
  ) -> AnyPublisher<AudioFileResource, any Error> {
    let bundle = UncheckedBundle(bundle: bundle)
    return Future { promise in
      let fulfil = UncheckedPromise(promise: promise)
      DispatchQueue.global(qos: .userInitiated).async {
        let result = Result {
          try load(named: name, in: bundle.bundle, inputMode: inputMode, shouldLoop: shouldLoop)
        }
        DispatchQueue.main.async { fulfil.promise(result) }
      }
    }.eraseToAnyPublisher()
  }

  private struct UncheckedBundle: @unchecked Sendable { let bundle: Bundle? }
  private struct UncheckedPromise: @unchecked Sendable {
    let promise: Future<AudioFileResource, any Error>.Promise
  }
}

/// Why an audio file could not be loaded: the file and the problem.
public struct AudioError: Error, LocalizedError, CustomStringConvertible, Sendable {
  /// The file or resource name.
  public var file: String
  /// What is wrong with it.
  public var problem: String
  /// `file: problem`.
  public var description: String { "\(file): \(problem)" }
  /// `file: problem`.
  public var errorDescription: String? { description }
}

/// Lengths of audio files from their headers.
enum AudioHeader {
  /// The clip length in seconds of a WAV, AIFF or MPEG-4 file.
  static func duration(of bytes: [UInt8], file: String) throws(AudioError) -> TimeInterval {
    func fail(_ problem: String) -> AudioError { AudioError(file: file, problem: problem) }
    func text(_ at: Int) -> String {
      at + 4 <= bytes.count ? String(decoding: bytes[at..<at + 4], as: UTF8.self) : ""
    }
    func le32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    func be32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
    func be64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
    if text(0) == "RIFF" && text(8) == "WAVE" {
      var at = 12
      var byteRate = 0
      while at + 8 <= bytes.count {
        let size = le32(at + 4)
        if text(at) == "fmt ", at + 16 <= bytes.count { byteRate = le32(at + 16) }
        if text(at) == "data" {
          guard byteRate > 0 else { throw fail("WAV data before a usable fmt chunk") }
          return Double(Swift.min(size, bytes.count - at - 8)) / Double(byteRate)
        }
        at += 8 + size + (size & 1)
      }
      throw fail("WAV without a data chunk")
    }
    if text(0) == "FORM" && (text(8) == "AIFF" || text(8) == "AIFC") {
      var at = 12
      while at + 8 <= bytes.count {
        let size = be32(at + 4)
        if text(at) == "COMM", at + 26 <= bytes.count {
          let frames = be32(at + 10)
          // The sample rate is an 80-bit extended float: sign and 15-bit exponent, 64-bit mantissa.
          let exponent = (Int(bytes[at + 16] & 0x7F) << 8 | Int(bytes[at + 17])) - 16383
          let mantissa = UInt64(bitPattern: Int64(be64(at + 18)))
          let rate = Double(mantissa) * pow(2, Double(exponent - 63))
          guard rate > 0, rate.isFinite else { throw fail("AIFF with a sample rate of \(rate)") }
          return Double(frames) / rate
        }
        at += 8 + size + (size & 1)
      }
      throw fail("AIFF without a COMM chunk")
    }
    if text(4) == "ftyp" {
      // MPEG-4: the movie header (moov/mvhd) holds the time scale and the duration.
      func find(_ type: String, in range: Range<Int>) -> Range<Int>? {
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
          var size = be32(at)
          var header = 8
          if size == 1, at + 16 <= range.upperBound {
            size = be64(at + 8)
            header = 16
          }
          if size == 0 { size = range.upperBound - at }
          guard size >= header, at + size <= range.upperBound else { return nil }
          if text(at + 4) == type { return (at + header)..<(at + size) }
          at += size
        }
        return nil
      }
      guard let moov = find("moov", in: 0..<bytes.count), let mvhd = find("mvhd", in: moov),
        mvhd.count >= 20
      else { throw fail("MPEG-4 without a movie header") }
      let version = bytes[mvhd.lowerBound]
      let (scale, length) =
        version == 1 && mvhd.count >= 32
        ? (be32(mvhd.lowerBound + 20), be64(mvhd.lowerBound + 24))
        : (be32(mvhd.lowerBound + 12), be32(mvhd.lowerBound + 16))
      guard scale > 0 else { throw fail("MPEG-4 with a time scale of 0") }
      return Double(length) / Double(scale)
    }
    throw fail("is not a WAV, AIFF or MPEG-4 audio file")
  }
}

/// Controls a clip an entity plays (RealityKit's `AudioPlaybackController`). It advances with the
/// entity's scene on the recording clock (an entity not in a view's scene does not advance).
public final class AudioPlaybackController {
  /// The entity playing the clip, while it lives.
  public private(set) weak var entity: Entity?
  /// The clip.
  public let resource: AudioResource
  /// Seconds into the clip.
  public private(set) var time: TimeInterval = 0
  /// Whether the clip is playing.
  public private(set) var isPlaying = false
  /// Whether the clip ended or was stopped.
  public private(set) var isComplete = false
  /// The loudness change, decibels (0 unchanged). Kept.
  public var gain: Double = 0
  /// How fast the clip plays (1 normal). Negative values count as 0.
  public var speed: Double = 1
  /// The reverb send, decibels. Kept.
  public var reverbSendLevel: Double = 0
  /// Called once when the clip plays to its end (not when stopped).
  public var completionHandler: (() -> Void)?

  init(entity: Entity, resource: AudioResource) {
    self.entity = entity
    self.resource = resource
  }

  /// Starts or resumes the clip.
  public func play() {
    if isComplete {
      isComplete = false
      time = 0
    }
    isPlaying = true
    entity?.adoptAudio(self)
  }

  /// Holds the clip where it is.
  public func pause() { isPlaying = false }

  /// Stops the clip and rewinds it; no completion.
  public func stop() {
    isPlaying = false
    time = 0
  }

  /// Changes the gain to `decibels` (applied at once: nothing is heard).
  public func fade(to decibels: Double, duration: TimeInterval) { gain = decibels }

  /// Advances by `seconds`; returns true when the clip ended in this step.
  func advance(by seconds: TimeInterval) -> Bool {
    guard isPlaying else { return false }
    time += seconds * Swift.max(speed, 0)
    let length = resource.duration
    if resource.shouldLoop && length > 0 {
      time = time.truncatingRemainder(dividingBy: length)
      return false
    }
    guard time >= length else { return false }
    time = length
    isPlaying = false
    isComplete = true
    return true
  }
}

/// Events of audio playback (RealityKit's `AudioEvents`).
public enum AudioEvents {
  /// A clip played to its end; its source is the playing entity.
  public struct PlaybackCompleted: Event {
    /// The controller of the finished clip.
    public let playbackController: AudioPlaybackController
  }
}

extension Entity {
  /// A controller for `resource` on this entity, not yet playing (RealityKit's `prepareAudio(_:)`).
  public func prepareAudio(_ resource: AudioResource) -> AudioPlaybackController {
    AudioPlaybackController(entity: self, resource: resource)
  }

  /// Plays `resource` from this entity (RealityKit's `playAudio(_:)`).
  @discardableResult
  public func playAudio(_ resource: AudioResource) -> AudioPlaybackController {
    let controller = prepareAudio(resource)
    controller.play()
    return controller
  }

  /// Stops every clip this entity plays (RealityKit's `stopAllAudio()`).
  public func stopAllAudio() {
    for controller in audioPlaybacks { controller.stop() }
    audioPlaybacks.removeAll()
  }

  /// Keeps a playing controller so that the scene advances it.
  func adoptAudio(_ controller: AudioPlaybackController) {
    if !audioPlaybacks.contains(where: { $0 === controller }) { audioPlaybacks.append(controller) }
  }

  /// Advances this entity's clips by `seconds`; returns the ones that ended.
  func advanceAudio(by seconds: TimeInterval) -> [AudioPlaybackController] {
    guard !audioPlaybacks.isEmpty else { return [] }
    let ended = audioPlaybacks.filter { $0.advance(by: seconds) }
    audioPlaybacks.removeAll { $0.isComplete || (!$0.isPlaying && $0.time == 0) }
    return ended
  }
}
