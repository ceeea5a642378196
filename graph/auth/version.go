package auth

// ServedVersion is the one API version this service serves.
const ServedVersion = "2026-10-01"
