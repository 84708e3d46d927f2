//! Pixels: an image's channels composited in their colours and windows, label overlays, a
//! variable's plane coloured.
