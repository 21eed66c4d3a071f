// swift-tools-version:6.0
import PackageDescription

// OpenCV and Eigen come from Debian (`libopencv-dev`, `libeigen3-dev`) through
// pkg-config. Only CVision touches them; everything above it sees a plain C header.
// libzip (`libzip-dev`) reads Record3D's .r3d archives; it has a plain C API of its own.
let package = Package(
  name: "ARSim",
  products: [
    .library(name: "ARSim", targets: ["ARSim"]),
    .library(name: "ARSimMath", targets: ["ARSimMath"]),
    .library(name: "ARSimSynth", targets: ["ARSimSynth"]),
    .library(name: "ARSimEval", targets: ["ARSimEval"]),
    .library(name: "ARSimScene", targets: ["ARSimScene"]),
    .executable(name: "arsim", targets: ["arsim"]),
  ],
  targets: [
    .systemLibrary(
      name: "COpenCV",
      pkgConfig: "opencv4",
      providers: [.apt(["libopencv-dev"])]
    ),
    .systemLibrary(
      name: "CEigen",
      pkgConfig: "eigen3",
      providers: [.apt(["libeigen3-dev"])]
    ),
    .systemLibrary(
      name: "CZip",
      pkgConfig: "libzip",
      providers: [.apt(["libzip-dev"])]
    ),
    .target(
      name: "CVision",
      dependencies: ["COpenCV", "CEigen"],
      cxxSettings: [.define("EIGEN_MPL2_ONLY")],
      linkerSettings: [.linkedLibrary("m")]
    ),
    .target(name: "ARSimMath"),
    .target(name: "ARSim", dependencies: ["ARSimMath", "CVision", "CZip"]),
    .target(name: "ARSimSynth", dependencies: ["ARSim", "ARSimMath"]),
    .target(name: "ARSimScene", dependencies: ["ARSim"]),
    .executableTarget(name: "arsim", dependencies: ["ARSim", "ARSimSynth", "ARSimEval"]),
    .testTarget(name: "ARSimMathTests", dependencies: ["ARSimMath"]),
    .target(name: "ARSimEval", dependencies: ["ARSimMath"]),
    .testTarget(name: "ARSimEvalTests", dependencies: ["ARSimEval"]),
    .target(name: "ARSimTestSupport", dependencies: ["ARSim"], path: "Tests/ARSimTestSupport"),
    .testTarget(name: "ARSimTests", dependencies: ["ARSim", "ARSimEval", "ARSimTestSupport"]),
    .testTarget(name: "arsimTests", dependencies: ["arsim", "ARSim", "ARSimTestSupport"]),
    .testTarget(name: "ARSimSynthTests", dependencies: ["ARSimSynth", "ARSim", "ARSimTestSupport"]),
    .testTarget(
      name: "ARSimSceneTests", dependencies: ["ARSimScene", "ARSim", "ARSimEval", "ARSimTestSupport"]),
  ],
  swiftLanguageModes: [.v6],
  cxxLanguageStandard: .cxx17
)
