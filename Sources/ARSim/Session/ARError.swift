import Foundation

/// The domain of ARKit's errors, as ARKit's `ARErrorDomain`.
public let ARErrorDomain = "com.apple.arkit.error"

/// An ARKit error: a code of Apple's list (same raw values, same domain) and a description, as
/// ARKit's `ARError`. ARSim reports problems with a recording's files as ``RecordingError``; ARError
/// is for what ARKit itself would report (a configuration ARSim cannot run, a damaged world map).
public struct ARError: Error, CustomNSError, LocalizedError, CustomStringConvertible, Hashable, Sendable {
  /// ARKit's error codes (`ARError.Code`), with Apple's raw values.
  public enum Code: Int, Sendable, Hashable, CaseIterable {
    /// The configuration cannot run here.
    case unsupportedConfiguration = 100
    /// A sensor the configuration needs is missing (in ARSim: the recording lacks it).
    case sensorUnavailable = 101
    /// A sensor failed.
    case sensorFailed = 102
    /// The app may not use the camera.
    case cameraUnauthorized = 103
    /// The app may not use the microphone.
    case microphoneUnauthorized = 104
    /// The app may not use location.
    case locationUnauthorized = 105
    /// A high-resolution frame is being captured already.
    case highResolutionFrameCaptureInProgress = 106
    /// A high-resolution frame could not be captured.
    case highResolutionFrameCaptureFailed = 107
    /// World tracking failed.
    case worldTrackingFailed = 200
    /// Geo tracking is not available here.
    case geoTrackingNotAvailableAtLocation = 201
    /// Geo tracking failed.
    case geoTrackingFailed = 202
    /// A reference image is unusable.
    case invalidReferenceImage = 300
    /// A reference object is unusable.
    case invalidReferenceObject = 301
    /// A world map is unusable.
    case invalidWorldMap = 302
    /// The configuration is invalid.
    case invalidConfiguration = 303
    /// Collaboration data is unusable.
    case invalidCollaborationData = 304
    /// Too few features to do what was asked.
    case insufficientFeatures = 400
    /// Merging objects failed.
    case objectMergeFailed = 401
    /// Reading or writing a file failed.
    case fileIOFailed = 500
    /// A request failed.
    case requestFailed = 501
  }

  /// What kind of error it is.
  public let code: Code
  /// What went wrong, in plain words (the file and the problem where there is a file).
  public let message: String

  /// An error of `code`; `userInfo`'s `NSLocalizedDescriptionKey` string, when present, is the message.
  public init(_ code: Code, userInfo: [String: Any] = [:]) {
    self.code = code
    message =
      userInfo[NSLocalizedDescriptionKey] as? String ?? "The operation couldn't be completed (\(code))."
  }

  /// An error of `code` described by `message` (ARSim's addition).
  public init(_ code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// ``ARErrorDomain``.
  public static var errorDomain: String { ARErrorDomain }
  /// The code's raw value.
  public var errorCode: Int { code.rawValue }
  /// The message under `NSLocalizedDescriptionKey`.
  public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
  /// The message.
  public var errorDescription: String? { message }
  /// The message (so that `"\(error)"` prints the one line).
  public var description: String { message }

}

// The codes as members of ARError, so that `catch ARError.invalidWorldMap` matches (through `~=`).
extension ARError {
  /// ``Code/unsupportedConfiguration``.
  public static var unsupportedConfiguration: Code { .unsupportedConfiguration }
  /// ``Code/sensorUnavailable``.
  public static var sensorUnavailable: Code { .sensorUnavailable }
  /// ``Code/sensorFailed``.
  public static var sensorFailed: Code { .sensorFailed }
  /// ``Code/cameraUnauthorized``.
  public static var cameraUnauthorized: Code { .cameraUnauthorized }
  /// ``Code/microphoneUnauthorized``.
  public static var microphoneUnauthorized: Code { .microphoneUnauthorized }
  /// ``Code/locationUnauthorized``.
  public static var locationUnauthorized: Code { .locationUnauthorized }
  /// ``Code/highResolutionFrameCaptureInProgress``.
  public static var highResolutionFrameCaptureInProgress: Code { .highResolutionFrameCaptureInProgress }
  /// ``Code/highResolutionFrameCaptureFailed``.
  public static var highResolutionFrameCaptureFailed: Code { .highResolutionFrameCaptureFailed }
  /// ``Code/worldTrackingFailed``.
  public static var worldTrackingFailed: Code { .worldTrackingFailed }
  /// ``Code/geoTrackingNotAvailableAtLocation``.
  public static var geoTrackingNotAvailableAtLocation: Code { .geoTrackingNotAvailableAtLocation }
  /// ``Code/geoTrackingFailed``.
  public static var geoTrackingFailed: Code { .geoTrackingFailed }
  /// ``Code/invalidReferenceImage``.
  public static var invalidReferenceImage: Code { .invalidReferenceImage }
  /// ``Code/invalidReferenceObject``.
  public static var invalidReferenceObject: Code { .invalidReferenceObject }
  /// ``Code/invalidWorldMap``.
  public static var invalidWorldMap: Code { .invalidWorldMap }
  /// ``Code/invalidConfiguration``.
  public static var invalidConfiguration: Code { .invalidConfiguration }
  /// ``Code/invalidCollaborationData``.
  public static var invalidCollaborationData: Code { .invalidCollaborationData }
  /// ``Code/insufficientFeatures``.
  public static var insufficientFeatures: Code { .insufficientFeatures }
  /// ``Code/objectMergeFailed``.
  public static var objectMergeFailed: Code { .objectMergeFailed }
  /// ``Code/fileIOFailed``.
  public static var fileIOFailed: Code { .fileIOFailed }
  /// ``Code/requestFailed``.
  public static var requestFailed: Code { .requestFailed }
}

/// Whether `error` is an ARError of `code` (so that `catch ARError.invalidWorldMap` works).
public func ~= (code: ARError.Code, error: any Error) -> Bool {
  (error as? ARError)?.code == code
}

extension RecordingError: LocalizedError {
  /// The one-line description, `FILE:LINE: message`, naming the file and the problem.
  public var errorDescription: String? { description }
}
