// Empty: `import os.signpost` resolves through this Clang submodule to the Swift `os` module (see
// module.modulemap), which declares the API.
