use super::*;

fn bytes_of(dir: &std::path::Path) -> Vec<u8> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        all.extend(std::fs::read(e.unwrap().path()).unwrap());
    }
    all
}

/// The SQLite store is private to its owner, and a deleted TK is gone
/// from every file of it (database, WAL), not left in free pages.
#[tokio::test]
async fn sqlite_store_is_private_and_forgets_deleted_keys() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("proxy.db");
    let store = Store::open(path.to_str().unwrap()).await.unwrap();
    let secret: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let keep = store
        .put_tk("t", "waters11", "bn254", &[7; 64])
        .await
        .unwrap();
    let id = store
        .put_tk("t", "waters11", "bn254", &secret)
        .await
        .unwrap();
    let token = store.create_token("t").await.unwrap();
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let e = e.unwrap();
        let mode = e.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{:?}", e.file_name());
    }
    let on_disk = bytes_of(dir.path());
    assert!(on_disk.windows(64).any(|w| w == &secret[..64]));
    assert!(store.delete_tk("t", &id).await.unwrap());
    let on_disk = bytes_of(dir.path());
    assert!(
        !on_disk.windows(64).any(|w| w == &secret[..64]),
        "the deleted TK is still in the store's files"
    );
    // What was not deleted is still there.
    assert_eq!(store.get_tk("t", &keep).await.unwrap(), Some(vec![7; 64]));
    assert_eq!(
        store.tenant_for_token(&token).await.unwrap().as_deref(),
        Some("t")
    );
    store.close().await;
}
