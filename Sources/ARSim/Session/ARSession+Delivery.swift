import Foundation

extension ARSession {
  // MARK: Delivery

  /// The one delivery point: every callback of the session goes through here, in order, on
  /// `delegateQueue` when set (synchronously), else on the calling thread: to the observers (in the
  /// order they were added), then the delegate. The delegate, the observers and the queue are read for
  /// each event, so a callback may change them; tracked raycasts are re-evaluated whether or not anyone
  /// listens.
  func deliver(_ events: [SessionEvent]) {
    for event in events {
      let (delegate, queue, watchers) = locked {
        (_delegate, _delegateQueue, observers.compactMap(\.observer))
      }
      let body: () -> Void
      if case .trackedRaycasts(let frame) = event {
        let raycasts = locked { trackedRaycasts }
        guard !raycasts.isEmpty else { continue }
        body = { for raycast in raycasts { raycast.update(in: self, frame: frame) } }
      } else {
        let receivers: [any ARSessionDelegate] = watchers + (delegate.map { [$0] } ?? [])
        guard !receivers.isEmpty else { continue }
        body = { for receiver in receivers { self.call(receiver, event) } }
      }
      if let queue {
        queue.sync(execute: body)
      } else {
        body()
      }
    }
  }

  func call(_ delegate: any ARSessionDelegate, _ event: SessionEvent) {
    switch event {
    case .wasInterrupted: delegate.sessionWasInterrupted(self)
    case .interruptionEnded: delegate.sessionInterruptionEnded(self)
    case .trackingStateChanged(let camera): delegate.session(self, cameraDidChangeTrackingState: camera)
    case .frameUpdated(let frame): delegate.session(self, didUpdate: frame)
    case .anchorsAdded(let anchors): delegate.session(self, didAdd: anchors)
    case .anchorsUpdated(let anchors): delegate.session(self, didUpdate: anchors)
    case .anchorsRemoved(let anchors): delegate.session(self, didRemove: anchors)
    case .failed(let error): delegate.session(self, didFailWithError: error)
    case .trackedRaycasts: break
    }
  }

  // MARK: Tracked raycasts

  package func register(_ raycast: ARTrackedRaycast) { locked { trackedRaycasts.append(raycast) } }

  package func unregister(_ raycast: ARTrackedRaycast) {
    locked { trackedRaycasts.removeAll { $0 === raycast } }
  }
}
