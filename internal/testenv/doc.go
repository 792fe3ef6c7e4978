// Package testenv connects integration tests to the real PostgreSQL and
// Neo4j started by scripts/services.sh (TEST_DATABASE_URL, TEST_NEO4J_URI).
// Without them a test is skipped, except under CI=true, where a missing
// service fails the run: CI must never pass by testing nothing. A Proxy
// in front of either plays an outage without stopping the shared server.
package testenv
