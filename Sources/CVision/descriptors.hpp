// ORB descriptors as CVision passes them: 32 bytes each (cvision.h's cv_detect_features and
// cv_match_descriptors).

#ifndef ARSIM_CVISION_DESCRIPTORS_HPP
#define ARSIM_CVISION_DESCRIPTORS_HPP

namespace cvision {

/// Bytes of one ORB descriptor.
constexpr int kDescriptorBytes = 32;

}  // namespace cvision

#endif
