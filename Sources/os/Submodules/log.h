// Empty: `import os.log` resolves through this Clang submodule to the Swift `os` module (see
// module.modulemap), which declares the API.
