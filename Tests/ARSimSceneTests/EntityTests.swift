import ARSimScene
import Foundation
import Testing

@Suite struct EntityTests {
  /// A parent at (1, 0, 0), turned 90° about y (x goes to −z), scaled by 2, with a child at (1, 0, 0).
  func parentAndChild() -> (parent: Entity, child: Entity) {
    let parent = Entity()
    parent.transform = Transform(
      scale: SIMD3(2, 2, 2), rotation: rotation(90, SIMD3(0, 1, 0)), translation: SIMD3(1, 0, 0))
    let child = Entity()
    child.position = SIMD3(1, 0, 0)
    parent.addChild(child)
    return (parent, child)
  }

  @Test func childTransformComposesWithItsParent() {
    let (parent, child) = parentAndChild()
    // (1, 0, 0) + Ry(90°)·(2·(1, 0, 0)) = (1, 0, 0) + (0, 0, −2).
    #expect(close(child.position(relativeTo: nil), SIMD3(1, 0, -2)))
    #expect(sameRotation(child.orientation(relativeTo: nil), rotation(90, SIMD3(0, 1, 0))))
    #expect(close(child.scale(relativeTo: nil), SIMD3(2, 2, 2)))
    #expect(close(child.position(relativeTo: parent), SIMD3(1, 0, 0)))
    // The parent seen from the child: at −(1, 0, 0) in the child's space (which has the parent's scale).
    #expect(close(parent.position(relativeTo: child), SIMD3(-1, 0, 0)))
    #expect(child.parent === parent)
    #expect(parent.children.count == 1 && parent.children[0] === child)
  }

  @Test func transformMatrixRelativeToAnotherEntity() {
    let (parent, child) = parentAndChild()
    let other = Entity()
    other.position = SIMD3(0, 3, 0)
    // In `other`'s space the child's origin is (1, 0, −2) − (0, 3, 0).
    let matrix = child.transformMatrix(relativeTo: other)
    #expect(close(SIMD3(matrix.columns.3.x, matrix.columns.3.y, matrix.columns.3.z), SIMD3(1, -3, -2)))
    #expect(close(child.transformMatrix(relativeTo: nil), parent.transform.matrix * child.transform.matrix))
  }

  @Test func setPositionRelativeToAnotherEntity() {
    // Reference at (0, 1, 0) turned 180° about y: its +x is world −x.
    let reference = Entity()
    reference.transform = Transform(rotation: rotation(180, SIMD3(0, 1, 0)), translation: SIMD3(0, 1, 0))
    let parent = Entity()
    parent.position = SIMD3(5, 0, 0)
    let entity = Entity()
    entity.orientation = rotation(45, SIMD3(1, 0, 0))
    parent.addChild(entity)
    entity.setPosition(SIMD3(1, 0, 0), relativeTo: reference)
    // World (0, 1, 0) + (−1, 0, 0) = (−1, 1, 0); under a parent at (5, 0, 0): (−6, 1, 0).
    #expect(close(entity.position(relativeTo: nil), SIMD3(-1, 1, 0)))
    #expect(close(entity.position, SIMD3(-6, 1, 0)))
    #expect(close(entity.position(relativeTo: reference), SIMD3(1, 0, 0)))
    #expect(sameRotation(entity.orientation, rotation(45, SIMD3(1, 0, 0))))
    entity.setPosition(SIMD3(0, 0, 2), relativeTo: nil)
    #expect(close(entity.position, SIMD3(-5, 0, 2)))
  }

  @Test func setOrientationRelativeToWorldAndToAnotherEntity() {
    let parent = Entity()
    parent.orientation = rotation(90, SIMD3(0, 1, 0))
    let child = Entity()
    child.position = SIMD3(0, 0, 1)
    parent.addChild(child)
    child.setOrientation(simd_quatf(ix: 0, iy: 0, iz: 0, r: 1), relativeTo: nil)
    // Level with the world: turned −90° about y against its parent; the position is kept.
    #expect(sameRotation(child.orientation, rotation(-90, SIMD3(0, 1, 0))))
    #expect(sameRotation(child.orientation(relativeTo: nil), simd_quatf(ix: 0, iy: 0, iz: 0, r: 1)))
    #expect(close(child.position, SIMD3(0, 0, 1)))
    let reference = Entity()
    reference.orientation = rotation(90, SIMD3(1, 0, 0))
    child.setOrientation(rotation(90, SIMD3(0, 0, 1)), relativeTo: reference)
    // World: Rx(90°)·Rz(90°); local: Ry(−90°)·Rx(90°)·Rz(90°).
    let world = rotation(90, SIMD3(1, 0, 0)) * rotation(90, SIMD3(0, 0, 1))
    #expect(sameRotation(child.orientation(relativeTo: nil), world))
    #expect(sameRotation(child.orientation, rotation(-90, SIMD3(0, 1, 0)) * world))
    #expect(sameRotation(child.orientation(relativeTo: reference), rotation(90, SIMD3(0, 0, 1))))
    // Rz(90°)·x = y: the child's x axis points along world Rx(90°)·y = z.
    #expect(close(child.convert(direction: SIMD3(1, 0, 0), to: nil), SIMD3(0, 0, 1)))
  }

  @Test func setScaleAndTransformMatrixRelativeToWorld() {
    let (parent, child) = parentAndChild()
    child.setScale(SIMD3(1, 1, 1), relativeTo: nil)
    #expect(close(child.scale, SIMD3(0.5, 0.5, 0.5)))
    #expect(close(child.position(relativeTo: nil), SIMD3(1, 0, -2)))
    let target = Transform(rotation: rotation(30, SIMD3(0, 0, 1)), translation: SIMD3(4, 5, 6)).matrix
    child.setTransformMatrix(target, relativeTo: nil)
    #expect(close(child.transformMatrix(relativeTo: nil), target))
    #expect(child.parent === parent)
  }

  @Test func convertPositionsBetweenEntities() {
    let (parent, child) = parentAndChild()
    // The child's point (0, 0, 1): 2·Ry(90°)·(0, 0, 1) = (2, 0, 0) from the child's origin (1, 0, −2).
    #expect(close(child.convert(position: SIMD3(0, 0, 1), to: nil), SIMD3(3, 0, -2)))
    #expect(close(child.convert(position: SIMD3(3, 0, -2), from: nil), SIMD3(0, 0, 1)))
    #expect(close(parent.convert(position: SIMD3(1, 0, 0), from: child), SIMD3(2, 0, 0)))
    #expect(close(child.convert(position: .zero, to: parent), SIMD3(1, 0, 0)))
  }

  @Test func reparentingPreservesOrKeepsTheTransform() {
    let (parent, child) = parentAndChild()
    child.removeFromParent(preservingWorldTransform: true)
    #expect(child.parent == nil && parent.children.isEmpty)
    #expect(close(child.position, SIMD3(1, 0, -2)))
    let other = Entity()
    other.position = SIMD3(0, 1, 0)
    other.addChild(child, preservingWorldTransform: true)
    #expect(close(child.position, SIMD3(1, -1, -2)))
    parent.addChild(child)
    #expect(other.children.isEmpty && child.parent === parent)
    #expect(close(child.position, SIMD3(1, -1, -2)))
  }

  @Test func cloneRecursiveIsADeepCopy() throws {
    let root = Entity()
    root.name = "root"
    root.position = SIMD3(1, 2, 3)
    let cup = ModelEntity(
      name: "cup", bounds: BoundingBox(min: SIMD3(-0.04, 0, -0.04), max: SIMD3(0.04, 0.1, 0.04)))
    cup.position = SIMD3(0, 0.5, 0)
    cup.isEnabled = false
    root.addChild(cup)
    let saucer = Entity()
    saucer.name = "saucer"
    cup.addChild(saucer)

    let copy = root.clone(recursive: true)
    #expect(copy !== root && copy.name == "root" && copy.position == root.position)
    #expect(copy.parent == nil)
    let copiedCup = try #require(copy.children.first as? ModelEntity)
    #expect(copiedCup !== cup)
    #expect(copiedCup.name == "cup" && copiedCup.bounds == cup.bounds && !copiedCup.isEnabled)
    #expect(copiedCup.children.first?.name == "saucer" && copiedCup.children.first !== saucer)
    #expect(copiedCup.children.first?.parent === copiedCup)
    copiedCup.position = SIMD3(9, 9, 9)
    #expect(cup.position == SIMD3(0, 0.5, 0))
    #expect(root.children.count == 1)

    let shallow = root.clone(recursive: false)
    #expect(shallow.children.isEmpty && shallow.name == "root")
    let modelCopy: ModelEntity = cup.clone(recursive: false)
    #expect(modelCopy.bounds == cup.bounds)
  }

  @Test func findEntityAndVisualBounds() {
    let root = Entity()
    root.scale = SIMD3(2, 2, 2)
    let cup = ModelEntity(name: "cup", bounds: BoundingBox(min: SIMD3(-1, 0, -1), max: SIMD3(1, 1, 1)))
    cup.position = SIMD3(0, 0, 5)
    root.addChild(cup)
    #expect(root.findEntity(named: "cup") === cup)
    #expect(root.findEntity(named: "plate") == nil)
    let box = root.visualBounds(relativeTo: nil)
    // Scaled by 2 about the root's origin: (0, 0, 10) ± (2, 0...2, 2).
    #expect(close(box.min, SIMD3(-2, 0, 8)) && close(box.max, SIMD3(2, 2, 12)))
    #expect(root.visualBounds(recursive: false, relativeTo: nil).isEmpty)
    cup.isEnabled = false
    #expect(root.visualBounds(relativeTo: nil, excludeInactive: true).isEmpty)
    #expect(!cup.isEnabledInHierarchy)
  }
}
