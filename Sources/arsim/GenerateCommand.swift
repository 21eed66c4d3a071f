/// `arsim generate SCENE OUT`: renders a synthetic recording (filled in by the synthesis work).
enum GenerateCommand {
  static func run(_ arguments: [String]) throws -> Int32 {
    throw Arguments.UsageError("not in this build yet")
  }
}
