//! CF time coordinates: `units` ("days since 2026-01-01") and `calendar`, decoded to dates.
