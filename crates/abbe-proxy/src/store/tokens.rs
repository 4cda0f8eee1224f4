//! Bearer tokens: created at random, stored as their SHA-256, looked up by
//! digest and compared in constant time, listed and revoked by public id.

use super::*;

/// Bytes of the digest that make a token's id.
const TOKEN_ID_BYTES: usize = 8;

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A token's public id (what `token list` shows and `token revoke` takes):
/// the first bytes of its digest, so whoever holds the token can name it.
pub fn token_id(token: &str) -> String {
    hex(&token_hash(token.trim())[..TOKEN_ID_BYTES])
}

impl Store {
    /// Creates a bearer token for `tenant` and returns it (only its digest
    /// is stored).
    pub async fn create_token(&self, tenant: &str) -> Result<String, StoreError> {
        Ok(self.create_token_with_id(tenant).await?.0)
    }

    /// As [`Store::create_token`], also returning the token's public id.
    pub async fn create_token_with_id(&self, tenant: &str) -> Result<(String, String), StoreError> {
        let token = format!("abbe_{}", random_hex(32));
        let h = token_hash(&token);
        let id = token_id(&token);
        on_pool!(self, p => sqlx::query("INSERT INTO tokens (token_hash, tenant, created_at) VALUES ($1, $2, $3)")
            .bind(h)
            .bind(tenant)
            .bind(now())
            .execute(p)
            .await
            .map(|_| ()))?;
        Ok((token, id))
    }

    /// Every token (id, tenant, creation time), oldest first; `tenant`
    /// restricts the list to one tenant.
    pub async fn list_tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenInfo>, StoreError> {
        let rows: Vec<(Vec<u8>, String, i64)> = on_pool!(self, p => {
            sqlx::query("SELECT token_hash, tenant, created_at FROM tokens ORDER BY created_at, tenant, token_hash")
                .fetch_all(p)
                .await?
                .iter()
                .map(|r| Ok::<_, sqlx::Error>((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                .collect::<Result<Vec<_>, _>>()?
        });
        Ok(rows
            .into_iter()
            .filter(|(_, t, _)| tenant.is_none_or(|want| want == t))
            .map(|(h, tenant, created_at)| TokenInfo {
                id: hex(&h[..h.len().min(TOKEN_ID_BYTES)]),
                tenant,
                created_at,
            })
            .collect())
    }

    /// Revokes the token whose id is `id` (as listed); returns it, or
    /// `None` when no token has this id. Requests with it are refused from
    /// then on.
    pub async fn revoke_token(&self, id: &str) -> Result<Option<TokenInfo>, StoreError> {
        let id = id.trim().to_ascii_lowercase();
        if id.len() != 2 * TOKEN_ID_BYTES || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let hashes: Vec<(Vec<u8>, String, i64)> = on_pool!(self, p => {
            sqlx::query("SELECT token_hash, tenant, created_at FROM tokens")
                .fetch_all(p)
                .await?
                .iter()
                .map(|r| Ok::<_, sqlx::Error>((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
                .collect::<Result<Vec<_>, _>>()?
        });
        let mut found = None;
        for (h, tenant, created_at) in hashes {
            if hex(&h[..h.len().min(TOKEN_ID_BYTES)]) == id {
                on_pool!(self, p => sqlx::query("DELETE FROM tokens WHERE token_hash = $1")
                    .bind(&h)
                    .execute(p)
                    .await
                    .map(|_| ()))?;
                // Ids are 64 bits of a hash of 256-bit random tokens: two
                // tokens sharing one is not expected; both would go.
                found = Some(TokenInfo {
                    id: id.clone(),
                    tenant,
                    created_at,
                });
            }
        }
        Ok(found)
    }

    /// The tenant a bearer token belongs to.
    pub async fn tenant_for_token(&self, token: &str) -> Result<Option<String>, StoreError> {
        let h = token_hash(token);
        let row: Option<(Vec<u8>, String)> = on_pool!(self, p => {
            sqlx::query("SELECT token_hash, tenant FROM tokens WHERE token_hash = $1")
                .bind(&h)
                .fetch_optional(p)
                .await?
                .map(|r| Ok::<_, sqlx::Error>((r.try_get(0)?, r.try_get(1)?)))
                .transpose()?
        });
        Ok(row.and_then(|(stored, tenant)| {
            bool::from(stored.as_slice().ct_eq(h.as_slice())).then_some(tenant)
        }))
    }
}
