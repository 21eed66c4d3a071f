import ARSim
import ARSimSynth
import Foundation
import Testing

@Suite struct SceneValidationTests {
  /// A valid scene as JSON text, with `edit` applied to its object first.
  func json(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
    let encoded = try JSONEncoder().encode(SynthFixtures.scene())
    var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
    edit(&object)
    return try JSONSerialization.data(withJSONObject: object)
  }

  func error(_ edit: (inout [String: Any]) -> Void) throws -> SceneError {
    let data = try json(edit)
    do {
      _ = try SyntheticScene.decode(data, source: "bad.json")
    } catch {
      return error
    }
    Issue.record("the scene was accepted")
    return SceneError(file: "", key: "", "")
  }

  @Test func aValidSceneRoundTrips() throws {
    let scene = try SyntheticScene.decode(try json(), source: "good.json")
    #expect(scene == SynthFixtures.scene())
  }

  @Test func defaultsFillMissingKeys() throws {
    let text = """
      {"camera": {"fx": 60, "fy": 60, "cx": 31.5, "cy": 23.5, "width": 64, "height": 48}, "duration": 2,
       "materials": [{"name": "m", "type": "tiles"}],
       "surfaces": [{"id": 1, "label": "floor", "material": "m",
                     "rectangle": {"center": [0, 0, 0], "normal": [0, 1, 0], "xAxis": [1, 0, 0], "width": 4, "height": 4}}],
       "trajectory": {"keyframes": [{"time": 0, "position": [0, 1.5, 2], "lookAt": [0, 0, 0]},
                                    {"time": 2, "position": [1, 1.5, 2], "lookAt": [0, 0, 0]}]}}
      """
    let scene = try SyntheticScene.decode(Data(text.utf8), source: "minimal.json")
    #expect(scene.frameRate == 30 && scene.frameCount == 61)
    #expect(scene.render.supersamples == 4 && scene.render.texelsPerMetre == 512)
    #expect(scene.sensors.depth == nil && scene.sensors.imu == nil)
    #expect(scene.sensors.imageNoise == 1.5 && scene.seed == 1)
  }

  @Test func nonCoplanarPolygonNamesTheKey() throws {
    let error = try error { object in
      var surfaces = object["surfaces"] as! [[String: Any]]
      surfaces[1]["polygon"] = [[0, 0.75, 0], [1, 0.75, 0], [1, 0.8, 1], [0, 0.75, 1]]
      object["surfaces"] = surfaces
    }
    #expect(error.file == "bad.json")
    #expect(error.key == "surfaces[1].polygon")
    #expect(error.message.contains("not coplanar"), "\(error)")
    #expect(error.description.hasPrefix("bad.json: surfaces[1].polygon: vertices are not coplanar"))
  }

  @Test func nonConvexPolygonIsRefused() throws {
    let error = try error { object in
      var surfaces = object["surfaces"] as! [[String: Any]]
      surfaces[1]["polygon"] = [
        [0, 0.75, 0], [1, 0.75, 0], [0.5, 0.75, -0.2], [1, 0.75, -1], [0, 0.75, -1],
      ]
      object["surfaces"] = surfaces
    }
    #expect(error.key == "surfaces[1].polygon")
    #expect(error.message.contains("not convex"), "\(error)")
  }

  @Test func negativeDurationNamesTheKey() throws {
    let error = try error { $0["duration"] = -1 }
    #expect(error.key == "duration")
    #expect(error.description == "bad.json: duration: must be in 1e-06...3600.0, got -1.0")
  }

  @Test func unknownLabelNamesTheKeyAndTheChoices() throws {
    let error = try error { object in
      var surfaces = object["surfaces"] as! [[String: Any]]
      surfaces[0]["label"] = "sofa"
      object["surfaces"] = surfaces
    }
    #expect(error.key == "surfaces[0].label")
    #expect(
      error.message
        == "unknown value 'sofa' (expected one of floor, table, wall, ceiling, seat, door, window, other)")
  }

  @Test("A key with a line break in it (a fuzzer's find) is named on one line")
  func keyWithALineBreakStaysOneLine() throws {
    let error = try error { object in
      var surfaces = object["surfaces"] as! [[String: Any]]
      surfaces[0]["rect\ngle"] = surfaces[0]["rectangle"]
      object["surfaces"] = surfaces
    }
    #expect(error.description == "bad.json: surfaces[0].rect\\ngle: unknown key")
  }

  @Test func otherProblemsNameTheirKeys() throws {
    let cases: [(String, (inout [String: Any]) -> Void)] = [
      ("camera", { $0.removeValue(forKey: "camera") }),
      (
        "surfaces[2].material",
        { object in
          var surfaces = object["surfaces"] as! [[String: Any]]
          surfaces[2]["material"] = "marble"
          object["surfaces"] = surfaces
        }
      ),
      (
        "surfaces[1].id",
        { object in
          var surfaces = object["surfaces"] as! [[String: Any]]
          surfaces[1]["id"] = 10
          object["surfaces"] = surfaces
        }
      ),
      (
        "sensors.imu.rate",
        { object in
          var sensors = object["sensors"] as! [String: Any]
          var imu = sensors["imu"] as! [String: Any]
          imu["rate"] = 50
          sensors["imu"] = imu
          object["sensors"] = sensors
        }
      ),
      ("trajectory.keyframes[3].time", { $0["duration"] = 3 }),
      (
        "materials[0].type",
        { object in
          var materials = object["materials"] as! [[String: Any]]
          materials[0]["type"] = "marble"
          object["materials"] = materials
        }
      ),
      ("frameRate", { $0["frameRate"] = "fast" }),
      (
        "sensors.imageNosie",
        { object in
          var sensors = object["sensors"] as! [String: Any]
          sensors["imageNosie"] = 3
          object["sensors"] = sensors
        }
      ),
      (
        "trajectory.keyframes[1].lookat",
        { object in
          var trajectory = object["trajectory"] as! [String: Any]
          var keyframes = trajectory["keyframes"] as! [[String: Any]]
          keyframes[1]["lookat"] = [0, 0, 0]
          trajectory["keyframes"] = keyframes
          object["trajectory"] = trajectory
        }
      ),
    ]
    for (key, edit) in cases {
      let error = try error(edit)
      #expect(error.key == key, "\(error)")
    }
  }

  @Test func shippedScenesAreValid() throws {
    let folder = SynthFixtures.repositoryRoot + "/Datasets/scenes"
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
    #expect(Set(names).isSuperset(of: ["tabletop.json", "room.json", "stress.json", "tabletop-mono.json"]))
    for name in names {
      let scene = try SyntheticScene.load(path: folder + "/" + name)
      #expect(scene.camera.width == 640 && scene.camera.height == 480, "\(name)")
    }
    #expect(try SyntheticScene.load(path: folder + "/tabletop-mono.json").sensors.depth == nil)
  }
}

@Suite struct DocumentationTests {
  @Test func theReadmeSceneExampleIsValid() throws {
    let readme = try String(
      contentsOfFile: SynthFixtures.repositoryRoot + "/Datasets/README.md", encoding: .utf8)
    let section = try #require(readme.range(of: "### Scene files"))
    let rest = readme[section.upperBound...]
    let start = try #require(rest.range(of: "```json\n"))
    let end = try #require(rest[start.upperBound...].range(of: "```"))
    let scene = try SyntheticScene.decode(
      Data(rest[start.upperBound..<end.lowerBound].utf8), source: "README")
    #expect(scene.name == "tabletop" && scene.surfaces.count == 2)
    #expect(scene.sensors.darkStretches.count == 1 && scene.sensors.depth != nil && scene.sensors.imu != nil)
  }
}
