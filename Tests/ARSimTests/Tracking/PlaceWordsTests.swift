import ARSimTestSupport
import Foundation
import Testing

@testable import ARSim

/// Place recognition's shortlist (``PlaceWords``, ``Relocalizer/shortlist(_:against:candidates:)``)
/// against brute force (every candidate keyframe matched in full) on the bundled recordings: keyframes
/// made from every 6th of the first 120 frames at their true poses with their recorded depth, then
/// every other frame (those between the keyframes) recognised against all of them.
@Suite struct PlaceWordsTests {
  /// The keyframes and the relocaliser with the default options, and one that matches every candidate.
  static func keyframes(of recording: String) throws -> (
    keyframes: [Keyframe], queries: [GrayImage], indexed: Relocalizer, brute: Relocalizer
  ) {
    var source = try Recording.open(folder: Datasets.path(recording))
    let intrinsics = source.info.intrinsics
    let options = TrackerOptions().relocalization
    var all = options
    all.shortlistedKeyframes = all.recognizedKeyframes
    var store = KeyframeStore(options: options, intrinsics: intrinsics)
    var queries: [GrayImage] = []
    while let frame = try source.nextFrame(), frame.index < 120 {
      guard let gray = frame.image?.gray, let truth = frame.groundTruth else { continue }
      if frame.index % 6 == 0, let depth = frame.depth {
        store.add(gray: gray, oFromOptical: truth, time: frame.timestamp) { pixel in
          // Nearest depth pixel (the depth map may be smaller than the image).
          let x = Int(Double(pixel.x) * Double(depth.width) / Double(intrinsics.width))
          let y = Int(Double(pixel.y) * Double(depth.height) / Double(intrinsics.height))
          guard x >= 0, y >= 0, x < depth.width, y < depth.height else { return nil }
          let d = Double(depth.metres[y * depth.width + x])
          return d.isFinite && d > 0.1 ? d : nil
        }
      } else if frame.index % 6 == 3 {
        queries.append(gray)
      }
    }
    return (
      store.keyframes, queries, Relocalizer(options: options, intrinsics: intrinsics),
      Relocalizer(options: all, intrinsics: intrinsics)
    )
  }

  /// The shortlist holds the keyframe brute force ranks first, and so the ranking's first keyframe is
  /// brute force's, for every frame brute force recognises; and it is far shorter than the candidates.
  @Test(arguments: ["tabletop", "room"]) func shortlistFindsBruteForcesKeyframe(_ recording: String) throws {
    try #require(Datasets.exists(recording), "Datasets/\(recording) is absent")
    let (keyframes, queries, indexed, brute) = try Self.keyframes(of: recording)
    #expect(keyframes.count >= 15, "\(keyframes.count) keyframes")
    let candidates = Array(keyframes.indices.reversed())
    #expect(candidates.count > indexed.options.shortlistedKeyframes)
    var recognised = 0
    for (k, gray) in queries.enumerated() {
      guard let (_, descriptors) = indexed.features(in: gray) else { continue }
      let best = brute.ranked(descriptors, against: keyframes[...], candidates: candidates).first
      guard let best else { continue }
      recognised += 1
      let shortlist = indexed.shortlist(descriptors, against: keyframes[...], candidates: candidates)
      #expect(shortlist.count == indexed.options.shortlistedKeyframes)
      #expect(shortlist.contains(best.index), "query \(k): keyframe \(best.index) not in \(shortlist)")
      let first = indexed.ranked(descriptors, against: keyframes[...], candidates: candidates).first
      #expect(first?.index == best.index && first?.matches == best.matches, "query \(k)")
    }
    #expect(recognised >= queries.count * 3 / 4, "\(recognised) of \(queries.count) recognised")
  }

  /// A keyframe's words are its descriptors' 16-bit slices, distinct and sorted; a frame shares every
  /// one of them with itself, and none with a descriptor set that differs in every slice.
  @Test func wordsAreTheDescriptorsSlices() {
    let descriptors = (0..<50).map { k in
      ORBDescriptor(words: SIMD4(UInt64(k) &* 0x9E37_79B9_7F4A_7C15, UInt64(k) << 17, ~UInt64(k), 7))
    }
    let words = PlaceWords(descriptors + descriptors)
    #expect(words.words == Array(Set(words.words)).sorted())
    #expect(words.words.count <= descriptors.count * PlaceWords.tables)
    #expect(PlaceQuery(descriptors).score(words) == words.words.count)
    let flipped = descriptors.map { ORBDescriptor(words: ~$0.words) }
    // Every 16-bit slice of a flipped descriptor is another slice's complement: no slice equals its own
    // complement, so only a coincidence with another descriptor's slice could be shared.
    let shared = PlaceQuery(flipped).score(words)
    #expect(shared < words.words.count / 10, "\(shared) of \(words.words.count)")
  }
}
