import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

/// The bytes of a mono 16-bit WAV file of `seconds` of silence at `rate` samples per second.
private func wav(seconds: Double, rate: Int = 8000) -> [UInt8] {
  func le(_ value: Int, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
  let data = Int(seconds * Double(rate)) * 2
  return Array("RIFF".utf8) + le(36 + data, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2)
    + le(rate, 4) + le(rate * 2, 4) + le(2, 2) + le(16, 2) + Array("data".utf8) + le(data, 4)
    + [UInt8](repeating: 0, count: data)
}

/// An AIFF header of `frames` frames at 44100 Hz (no sound data needed for the length).
private func aiff(frames: Int) -> [UInt8] {
  func be(_ value: Int, _ count: Int) -> [UInt8] {
    (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
  // 44100 as an 80-bit extended float: exponent 16383 + 15, mantissa 44100 << 48.
  let rate = be(16383 + 15, 2) + be(44100 << 48, 8)
  let comm = Array("COMM".utf8) + be(18, 4) + be(1, 2) + be(frames, 4) + be(16, 2) + rate
  return Array("FORM".utf8) + be(4 + comm.count, 4) + Array("AIFF".utf8) + comm
}

/// An MPEG-4 file holding only a movie header of `duration` units at `scale` per second.
private func m4a(duration: Int, scale: Int) -> [UInt8] {
  func be(_ value: Int, _ count: Int) -> [UInt8] {
    (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
  let ftyp = be(16, 4) + Array("ftypM4A ".utf8) + be(0, 4)
  let mvhdBody =
    [0, 0, 0, 0] + be(0, 4) + be(0, 4) + be(scale, 4) + be(duration, 4) + [UInt8](repeating: 0, count: 80)
  let mvhd = be(8 + mvhdBody.count, 4) + Array("mvhd".utf8) + mvhdBody
  let moov = be(8 + mvhd.count, 4) + Array("moov".utf8) + mvhd
  return ftyp + moov
}

@Suite struct AudioTests {
  static func write(_ bytes: [UInt8], _ name: String) throws -> URL {
    let url = URL(fileURLWithPath: RecordingFixtures.temporaryFolder("audio") + "/" + name)
    try Data(bytes).write(to: url)
    return url
  }

  @Test func headersGiveTheClipLength() throws {
    let chime = try AudioFileResource.load(contentsOf: try Self.write(wav(seconds: 0.5), "chime.wav"))
    #expect(
      chime.duration == 0.5 && chime.name == "chime" && chime.inputMode == .spatial && !chime.shouldLoop)
    let drum = try AudioFileResource.load(contentsOf: try Self.write(aiff(frames: 88200), "drum.aiff"))
    #expect(abs(drum.duration - 2) < 1e-9)
    let voice = try AudioFileResource.load(
      contentsOf: try Self.write(m4a(duration: 3000, scale: 1000), "voice.m4a"), inputMode: .ambient,
      shouldLoop: true)
    #expect(voice.duration == 3 && voice.inputMode == .ambient && voice.shouldLoop)
    let notAudio = try Self.write(Array("hello, world".utf8), "notes.wav")
    #expect {
      try AudioFileResource.load(contentsOf: notAudio)
    } throws: { error in
      "\(error)".contains("notes.wav") && "\(error)".contains("not a WAV, AIFF or MPEG-4")
    }
    #expect(throws: AudioError.self) { try AudioFileResource.load(named: "no-such-sound") }
  }

  @Test func clipsPlayOnTheRecordingClockAndCompleteAtTheirEnd() throws {
    let chime = try AudioFileResource.load(contentsOf: try Self.write(wav(seconds: 0.5), "chime.wav"))
    let loop = try AudioFileResource.load(
      contentsOf: try Self.write(wav(seconds: 0.2), "hum.wav"), shouldLoop: true)
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let speaker = Entity()
    let anchor = AnchorEntity(world: .zero)
    anchor.addChild(speaker)
    view.scene.addAnchor(anchor)
    var events = 0
    let token = view.scene.subscribe(to: AudioEvents.PlaybackCompleted.self, on: speaker) { _ in events += 1 }
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    try replay.step()
    let start = try #require(view.session.currentFrame?.timestamp)
    var endedAt: TimeInterval?
    let playing = speaker.playAudio(chime)
    playing.completionHandler = { endedAt = view.session.currentFrame?.timestamp }
    let hum = speaker.playAudio(loop)
    let stopped = speaker.playAudio(chime)
    _ = try replay.step(frames: 2)
    #expect(playing.isPlaying && abs(playing.time - 2.0 / 15) < 1e-6)
    stopped.stop()
    _ = try replay.step(frames: 20)
    let ended = try #require(endedAt)
    // The first frame at or after 0.5 s of recording time (15 fps: 8 frames, 0.533 s).
    #expect(abs((ended - start) - 8.0 / 15) < 1e-6 && events == 1)
    #expect(!playing.isPlaying && playing.isComplete && playing.time == 0.5)
    #expect(hum.isPlaying && hum.time < 0.2 && !hum.isComplete, "a looping clip never ends")
    #expect(!stopped.isComplete && stopped.time == 0)
    speaker.stopAllAudio()
    #expect(!hum.isPlaying)
    _ = token
  }
}
