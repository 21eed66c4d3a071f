import Foundation

// `arsim-fuzz`: libFuzzer targets for every reader and decoder (see FuzzTargets.swift).
//
// Built by `Tools/fuzz.sh TARGET SECONDS` with `-sanitize=fuzzer,address -parse-as-library -D FUZZING`:
// SwiftPM links an executable's entry point as `<module>_main` (`main` is bound to it), so that is
// defined here and hands over to libFuzzer's driver, which calls `LLVMFuzzerTestOneInput` with each
// input; the target is named by the environment variable `ARSIM_FUZZ_TARGET`. In a normal build this is a small tool that runs
// files through a target (to reproduce a finding without the fuzzer): `arsim-fuzz TARGET FILE...`;
// `ARSIM_FUZZ_SEEDS=DIR` writes the target's fixture seeds to DIR in both builds.

#if FUZZING
  /// libFuzzer's entry point: one input through the target named by `ARSIM_FUZZ_TARGET`.
  @_cdecl("LLVMFuzzerTestOneInput")
  func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.shared.run(bytes)
    return 0
  }

  /// libFuzzer's driver (LLVM 12 and later), for programs that have their own `main`.
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  /// The entry point SwiftPM's link binds `main` to. With `ARSIM_FUZZ_SEEDS` set to the corpus
  /// folder, the target's fixture files are written there first (libFuzzer reads it afterwards).
  @_cdecl("arsim_fuzz_main")
  func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    if let corpus = ProcessInfo.processInfo.environment["ARSIM_FUZZ_SEEDS"] {
      do {
        try FuzzHarness.shared.writeSeeds(to: corpus)
      } catch {
        FileHandle.standardError.write(Data("arsim-fuzz: cannot write seeds to \(corpus): \(error)\n".utf8))
        return 2
      }
    }
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
  }
#else
  /// Runs files through a target and prints what each gave (`ok` or the one-line error).
  @main enum FuzzReplay {
    static func main() {
      let arguments = CommandLine.arguments
      guard arguments.count >= 3, let target = FuzzTarget(rawValue: arguments[1]) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: arsim-fuzz \(names) FILE...\n".utf8))
        exit(2)
      }
      let harness = FuzzHarness(target: target)
      defer { harness.removeFixture() }
      if let corpus = ProcessInfo.processInfo.environment["ARSIM_FUZZ_SEEDS"] {
        do {
          try harness.writeSeeds(to: corpus)
        } catch {
          FileHandle.standardError.write(Data("arsim-fuzz: cannot write seeds to \(corpus): \(error)\n".utf8))
          exit(1)
        }
      }
      for path in arguments.dropFirst(2) {
        guard let data = FileManager.default.contents(atPath: path) else {
          FileHandle.standardError.write(Data("arsim-fuzz: \(path): cannot be read\n".utf8))
          exit(1)
        }
        print("\(path): \(harness.run([UInt8](data)))")
      }
    }
  }
#endif
