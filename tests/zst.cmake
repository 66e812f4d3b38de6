# tests of the zst area
