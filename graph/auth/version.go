package auth

// ServedVersion is the one API version this service serves (decisions 8).
const ServedVersion = "2026-10-01"
