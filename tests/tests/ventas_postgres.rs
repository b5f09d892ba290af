//! Several gates sharing one sales record in a real PostgreSQL server (a throwaway cluster
//! made by `tests::postgres`).

use tests::postgres::Postgres;

#[test]
fn a_throwaway_server_stops_and_starts_again() {
    let server = Postgres::start().expect("PostgreSQL starts");
    assert_eq!(server.psql("SELECT 1").expect("query"), "1");
    server.stop().expect("stops");
    assert!(server.psql("SELECT 1").is_err(), "down");
    server.start_again().expect("starts again");
    assert_eq!(server.psql("SELECT current_database()").expect("query"), tests::postgres::DATABASE);
}
