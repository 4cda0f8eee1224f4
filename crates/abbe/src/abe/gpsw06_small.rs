//! GPSW06 KP-ABE, small-universe construction (GPSW06 §4), in KEM form.
//!
//! Paper: V. Goyal, O. Pandey, A. Sahai, B. Waters, "Attribute-Based
//! Encryption for Fine-Grained Access Control of Encrypted Data", CCS 2006,
//! §4 (the construction wang14 and perazzo measured). The attribute universe
//! U = {1, …, n} is fixed at setup; every attribute has its own public
//! element. We write the paper's access tree as an LSSS (M, ρ) over the
//! same tree (shares λ_i = M_i·v, v = (y, y_2, …)), which is the paper's
//! polynomial sharing for AND/OR/threshold gates in matrix form.
//!
//! ```text
//! Setup U:  t_1..t_n, y ←R Z_p;  PK = (T_i = g^{t_i} (i ∈ U), Y = e(g,g)^y)
//!           MSK = (t_1..t_n, y)
//! KeyGen M: λ_i = M_i·(y, y_2, …);  D_i = g^{λ_i / t_ρ(i)}
//! Encrypt γ: s ←R Z_p;  E_i = T_i^s (i ∈ γ);  session key from Y^s
//! Decrypt:  Π_i e(E_ρ(i), D_i)^{ω_i} = Π_i e(g,g)^{s·λ_i·ω_i} = Y^s
//! ```
//!
//! ## The universe
//! Setup takes the universe ([`super::Universe`]) as a list of
//! attribute names: the (expanded) attribute strings that keys and
//! ciphertexts may use. The public and master keys store the names, so an
//! [`AttributeSet`] or a policy is mapped to universe indices by name; an
//! attribute outside the universe is refused with [`KemError::Invalid`].
//! Numeric attributes can be used only if the universe lists their
//! bag-of-bits markers (the strings [`AttributeSet::iter`] and
//! [`crate::policy::AccessTree::leaves`] show).
//!
//! The default [`super::Universe`] is **`A1, A2, …, A256`** ([`super::DEFAULT_UNIVERSE_SIZE`] attributes named
//! like [`crate::policy::generate::attr_name`], i.e. the benchmark
//! policies' attributes).
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! The only pairings are e(E_ρ(i), D_i), one per selected row. The **key's
//! D_i are in G2**, so their Miller-loop lines are precomputed once per key
//! ([`UserKey`] caches them) and every decryption runs one shared
//! multi-Miller loop over stored lines. The ciphertext's E_i = T_i^s are
//! therefore in G1, and so are the public T_i; encryption multiplies each
//! T_i by s through a fixed-base table on T_i (built on first use per
//! universe attribute, ≈ 80 KiB each on BLS12-381), cheaper than a
//! variable-base G1 exponentiation (`g1-mul-fixed` against `g1-mul` in
//! `cargo bench -p abbe --bench curve`).
//!
//! Speed against its lower bound (N prepared pairs + one final
//! exponentiation): `cargo bench -p abbe --bench gpsw06` and the lab.
//!
//! ## Side channels
//! Secret scalars go through fixed-base tables only (constant time); the
//! variable-time multiplications of decryption take the public
//! reconstruction coefficients.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## The swapped placement
//! [`crate::curve::Swapped`] (`abbe setup --placement swapped`) exchanges G1
//! and G2: T_i and E_i move to G2 and D_i to G1: key generation gets faster
//! (its D_i are G1 exponentiations), encryption and decryption slower (G2
//! tables, lines of every E_i per decryption; the lab's placement table);
//! `--optimize` keeps the standard placement for both. Security rests on the
//! decisional BDH assumption with the two source groups exchanged, as
//! plausible as the original on these curves (no efficient isomorphism either
//! way).

use crate::curve::LinedG2;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::exps::Base::Fixed;
use crate::kem::{same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{AttributeSet, Policy, PolicyTree};
use crate::wire::codec::{
    invalid, labels_match, nonzero, object, rows_match, secrets_match, Bound,
};
use crate::wire::{hex, Codec, Lazy, Reader, SchemeId, Secret, Wipe, WireError, Writer, MAX_ITEMS};
use rand_core::{CryptoRng, RngCore};
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gpsw06Small<C>(PhantomData<C>);

/// Longest universe attribute name, in bytes.
pub const MAX_UNIVERSE_NAME_BYTES: usize = 1024;

/// Checks a universe (non-empty, at most [`MAX_ITEMS`] names of 1 to
/// [`MAX_UNIVERSE_NAME_BYTES`] bytes, no duplicates) and indexes it.
fn index_universe(names: &[String]) -> Result<HashMap<String, usize>, String> {
    if names.is_empty() {
        return Err("the attribute universe is empty".into());
    }
    if names.len() > MAX_ITEMS {
        return Err(format!(
            "the attribute universe has {} attributes, at most {MAX_ITEMS} are allowed",
            names.len()
        ));
    }
    let mut index = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        if n.is_empty() || n.len() > MAX_UNIVERSE_NAME_BYTES {
            return Err(format!(
                "universe attribute {} has {} bytes (1 to {MAX_UNIVERSE_NAME_BYTES} allowed)",
                i + 1,
                n.len()
            ));
        }
        if index.insert(n.clone(), i).is_some() {
            return Err(format!(
                "attribute '{}' occurs twice in the universe",
                truncate(n)
            ));
        }
    }
    Ok(index)
}

fn truncate(s: &str) -> String {
    if s.len() <= 40 {
        return s.to_string();
    }
    let mut end = 40;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The universe: names, their indices, T_i and lazily built fixed-base
/// tables on T_i.
struct Universe<C: Curve> {
    names: Vec<String>,
    index: HashMap<String, usize>,
    t: Vec<C::G1>,
    tables: Vec<OnceLock<FixedBaseTable<C::G1>>>,
}

impl<C: Curve> Universe<C> {
    fn new(names: Vec<String>, index: HashMap<String, usize>, t: Vec<C::G1>) -> Self {
        let tables = (0..t.len()).map(|_| OnceLock::new()).collect();
        Universe {
            names,
            index,
            t,
            tables,
        }
    }

    fn lookup(&self, attr: &str, side: &str) -> Result<usize, KemError> {
        self.index.get(attr).copied().ok_or_else(|| {
            KemError::Invalid(format!(
                "attribute '{}' of the {side} is not in this setup's attribute universe \
                 ({} attributes fixed at setup)",
                truncate(attr),
                self.names.len()
            ))
        })
    }

    fn table(&self, i: usize) -> &FixedBaseTable<C::G1> {
        self.tables[i].get_or_init(|| self.t[i].precompute())
    }
}

/// Encoded as `u32 n ‖ n × (name ‖ T_i)` in index order; decoding checks
/// it as setup does.
impl<C: Curve> Codec for Universe<C> {
    const MIN_BYTES: usize = 4;
    fn layout() -> String {
        <Vec<(String, C::G1)>>::layout()
    }
    fn encode(&self, w: &mut Writer) {
        w.u32(self.names.len() as u32);
        for (name, t) in self.names.iter().zip(&self.t) {
            w.str(name).point(t);
        }
    }
    fn decode(r: &mut Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        let (names, t): (Vec<String>, Vec<C::G1>) =
            <Vec<(String, C::G1)>>::decode(r, what)?.into_iter().unzip();
        let index = index_universe(&names).map_err(|e| invalid("public key", e))?;
        Ok(Universe::new(names, index, t))
    }
}

object! {
    /// Public parameters: the universe's names and T_i = g^{t_i} ∈ G1, and
    /// Y = e(g,g)^y.
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME) {
        pub y: C::Gt => "Y",
        u: Arc<Universe<C>> => "universe (name, T_i)",
    }
    cached { g2: Lazy<FixedBaseTable<C::G2>>, id: OnceLock<[u8; 16]> }
}

impl<C: Curve> Bound for PublicKey<C> {
    fn setup_id(&self) -> [u8; 16] {
        PublicKey::setup_id(self)
    }
}

impl<C: Curve> core::fmt::Debug for PublicKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (n, id) = (self.u.names.len(), hex(&self.setup_id()));
        write!(
            f,
            "Gpsw06Small PublicKey on {} ({n} attributes, setup {id})",
            C::NAME
        )
    }
}

impl<C: Curve> PublicKey<C> {
    /// The universe's attribute names, in index order.
    pub fn universe(&self) -> &[String] {
        &self.u.names
    }

    /// T_i of a universe attribute.
    pub fn t(&self, attr: &str) -> Option<C::G1> {
        self.u.index.get(attr).map(|&i| self.u.t[i])
    }

    fn g2_table(&self) -> &FixedBaseTable<C::G2> {
        self.g2.get_or_init(|| C::G2::generator().precompute())
    }

    /// The setup identifier: the first 16 bytes of SHA-256 over the encoded
    /// public key (computed once).
    pub fn setup_id(&self) -> [u8; 16] {
        *self
            .id
            .get_or_init(|| crate::wire::setup_id(&self.to_bytes()))
    }
}

object! {
    /// The master key y and, per universe attribute in index order, its
    /// name and t_i; wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        y: Secret<C::Scalar> => "y",
        t: Secret<Vec<(String, C::Scalar)>> => "universe (name, t_i)",
    }
    check "t_i ≠ 0; the universe is valid; y and the t_i give the public key of the setup id" =>
        |mk| {
            for (_, ti) in mk.t.iter() {
                nonzero("master key", ti)?;
            }
            let names = mk.t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            let index = index_universe(&names).map_err(|e| invalid("master key", e))?;
            secrets_match(mk.public_key_with(index).setup_id(), mk.setup_id)
        };
}

impl<C: Curve> MasterKey<C> {
    fn public_key_with(&self, index: HashMap<String, usize>) -> PublicKey<C> {
        let g1 = C::G1::generator().precompute();
        let (names, t): (Vec<String>, Vec<C::Scalar>) = self.t.iter().cloned().unzip();
        let tp = par_map::<C, _, _>(&t, |ti| C::G1::mul_fixed(&g1, ti));
        let e_gg = C::pairing(&C::G1::generator(), &C::G2::generator());
        let pk = PublicKey {
            y: e_gg.pow(&self.y),
            u: Arc::new(Universe::new(names, index, tp)),
            g2: Lazy::default(),
            id: OnceLock::new(),
        };
        let mut t = t;
        t.wipe();
        pk
    }

    /// Recomputes the public key (T_i = g^{t_i}, Y = e(g,g)^y).
    pub fn public_key(&self) -> PublicKey<C> {
        let index = self
            .t
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), i))
            .collect();
        self.public_key_with(index)
    }
}

object! {
    /// A user's decryption key: the policy and one D_i ∈ G2 per LSSS row,
    /// with the G2 lines cached on first use; wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        policy: PolicyTree => "policy",
        rows: Secret<Vec<LinedG2<C>>> => "D_i",
    }
    check "one D_i per leaf of the policy" => |k| rows_match("key", &k.policy, k.rows.len());
    made_for Policy = |key| key.policy.policy.clone();
}

impl<C: Curve> UserKey<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }

    /// Π e(ω_i E_ρ(i), D_i): one multi-pairing of |selection| pairs.
    fn pair(&self, header: &Header<C>) -> Result<C::Gt, KemError> {
        same_setup(header, self)?;
        let selection = self
            .policy
            .tree
            .cheapest_satisfying(&header.set)
            .ok_or(KemError::NotSatisfied)?;
        let omega = self.policy.tree.reconstruction::<C::Scalar>(&selection)?;
        let leaves = self.policy.tree.leaves();
        let one = C::Scalar::one();
        let mut g1_terms = Vec::with_capacity(omega.len());
        let mut rows = Vec::with_capacity(omega.len());
        for (i, w) in &omega {
            let row = self
                .rows
                .get(*i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            let attr = leaves
                .get(*i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            let e = header.e_i(attr).ok_or(KemError::NotSatisfied)?;
            g1_terms.push(if *w == one { *e } else { *e * *w });
            rows.push(row);
        }
        // The key's G2 lines are computed once per key, then reused.
        par_map::<C, _, _>(&rows, |d| {
            d.lines();
        });
        let terms: Vec<(C::G1, &C::G2Prepared)> = g1_terms
            .into_iter()
            .zip(rows)
            .map(|(g, d)| (g, d.lines()))
            .collect();
        Ok(C::multi_pairing(&terms))
    }
}

object! {
    /// The KEM header: the attribute set γ and E_i = T_i^s ∈ G1 per
    /// (expanded) attribute, in the sorted order of the expansion.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        set: AttributeSet => "attribute list",
        ex: Vec<C::G1> => "E_i",
    }
    cached { index: BTreeMap<String, usize> = set.positions() }
    check "at least one attribute; one E_i per expanded attribute" =>
        |h| labels_match(&h.set, h.ex.len());
    made_for AttributeSet = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn attributes(&self) -> &AttributeSet {
        &self.set
    }
    fn e_i(&self, attr: &str) -> Option<&C::G1> {
        self.index.get(attr).and_then(|i| self.ex.get(*i))
    }
}

const SCHEME: SchemeId = SchemeId::Gpsw06Small;

/// Inverts all (nonzero) scalars with one field inversion (Montgomery's
/// trick); `None` if one is zero.
fn batch_invert<S: Scalar>(xs: &[S]) -> Option<Vec<S>> {
    let mut prefix = Vec::with_capacity(xs.len());
    let mut acc = S::one();
    for x in xs {
        prefix.push(acc);
        acc *= *x;
    }
    let mut inv = acc.invert()?;
    let mut out = vec![S::zero(); xs.len()];
    for i in (0..xs.len()).rev() {
        out[i] = inv * prefix[i];
        inv *= xs[i];
    }
    Some(out)
}

impl<C: Curve> Gpsw06Small<C> {
    fn setup_indexed<R: RngCore + CryptoRng>(
        names: Vec<String>,
        index: HashMap<String, usize>,
        rng: &mut R,
    ) -> (PublicKey<C>, MasterKey<C>) {
        let y = C::Scalar::random(rng);
        let t = names
            .iter()
            .map(|_| loop {
                let ti = C::Scalar::random(rng);
                if !ti.is_zero() {
                    break ti;
                }
            })
            .collect();
        let t: Vec<C::Scalar> = t;
        let mut mk = MasterKey {
            setup_id: [0; 16],
            y: Secret(y),
            t: Secret(names.into_iter().zip(t).collect()),
        };
        let pk = mk.public_key_with(index);
        mk.setup_id = pk.setup_id();
        (pk, mk)
    }
}

impl<C: Curve> Authority for Gpsw06Small<C> {
    crate::kem::authority_objects!(crate::abe::Universe, Policy);

    /// Setup over the given universe (see the module docs): one t_i per
    /// attribute name. Errors on an empty universe, a duplicate name, a name
    /// longer than [`MAX_UNIVERSE_NAME_BYTES`] or more than [`MAX_ITEMS`]
    /// names.
    fn setup<R: RngCore + CryptoRng>(
        universe: &crate::abe::Universe,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let index = index_universe(&universe.0).map_err(KemError::Invalid)?;
        Ok(Self::setup_indexed(universe.0.clone(), index, rng))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        policy: &Policy,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        same_setup(pk, mk)?;
        let policy = PolicyTree::new(policy.clone())?;
        let tree = &policy.tree;
        let idx: Vec<usize> = tree
            .leaves()
            .iter()
            .map(|a| pk.u.lookup(a, "policy"))
            .collect::<Result<_, _>>()?;
        let ts: Vec<C::Scalar> = idx
            .iter()
            .map(|&i| mk.t.get(i).map(|(_, t)| *t))
            .collect::<Option<_>>()
            .ok_or(KemError::WrongSetup)?;
        let mut t_inv = batch_invert(&ts)
            .ok_or_else(|| KemError::Invalid("t_i = 0 in the master key".into()))?;
        let mut ys: Vec<C::Scalar> = (1..tree.share_width())
            .map(|_| C::Scalar::random(rng))
            .collect();
        let mut exps = tree.shares(*mk.y, &ys)?;
        for (e, ti) in exps.iter_mut().zip(&t_inv) {
            *e *= *ti;
        }
        let table = pk.g2_table();
        let rows = par_map::<C, _, _>(&exps, |e| C::G2::mul_fixed(table, e));
        for v in ys.iter_mut().chain(exps.iter_mut()).chain(t_inv.iter_mut()) {
            wipe(v, C::Scalar::zero());
        }
        Ok(UserKey {
            setup_id: mk.setup_id,
            policy,
            rows: Secret(rows.into_iter().map(LinedG2::new).collect()),
        })
    }
}

impl<C: Curve> Kem for Gpsw06Small<C> {
    crate::kem::kem_objects!(SCHEME, Policy => AttributeSet; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    /// E_i = T_i^s for every i in the set.
    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        if attrs.is_empty() {
            return Err(KemError::Invalid(
                "a ciphertext needs at least one attribute".into(),
            ));
        }
        let items: Vec<(&str, usize)> = attrs
            .iter()
            .map(|a| pk.u.lookup(a, "attribute set").map(|i| (a, i)))
            .collect::<Result<_, _>>()?;
        let s = C::Scalar::random(rng);
        let u = &pk.u;
        let points = exps.each_shared::<C, _, _>(&items, &[s], |(_, i)| {
            (vec![], vec![(Fixed(u.table(*i)), 0)])
        });
        let key = SessionKey::from_gt(&pk.y.pow(&s), SCHEME, C::ID);
        let mut s = s;
        wipe(&mut s, C::Scalar::zero());
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                index: attrs.positions(),
                set: attrs.clone(),
                ex: points,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let e = key.pair(header)?;
        Ok(SessionKey::from_gt(&e, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, pol, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::policy::generate;

    type G = Gpsw06Small<Bls12>;

    const POLICY: &str = "(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)";
    const SETS: [(&str, bool); 6] = [
        ("doctor, cardiology", true),
        ("nurse, age = 31", true),
        ("nurse, ward25", true),
        ("ward25, age = 30, x", true),
        ("doctor, nurse, age = 29", false),
        ("cardiology", false),
    ];

    /// The policy's (expanded) leaves and every attribute (incl. numeric
    /// markers) of the test sets.
    fn universe() -> Vec<String> {
        let mut universe: Vec<String> = pol(POLICY).to_tree().unwrap().leaves().to_vec();
        for (s, _) in SETS {
            universe.extend(attrs(s).iter().map(str::to_string));
        }
        universe.sort();
        universe.dedup();
        universe
    }

    #[test]
    fn the_universe_is_kept_in_order() {
        let (pk, mk) = G::setup(&crate::abe::Universe(universe()), &mut rng(1)).unwrap();
        assert_eq!(pk.universe(), universe().as_slice());
        assert_eq!(G::public_key(&mk).to_bytes(), pk.to_bytes());
    }

    conformance::tests!(
        Gpsw06Small: Case::one_key(crate::abe::Universe(universe()), POLICY, &SETS);
        random_policies
    );

    #[test]
    fn default_universe_and_unknown_attributes() {
        let mut r = rng(2);
        let (pk, mk) = G::setup(&Default::default(), &mut r).unwrap();
        assert_eq!(pk.universe().len(), crate::abe::DEFAULT_UNIVERSE_SIZE);
        assert_eq!(pk.universe()[0], "A1");
        assert_eq!(pk.universe()[255], "A256");
        let key = G::keygen(&pk, &mk, &pol("A1 and A256"), &mut r).unwrap();
        let (session, header) = G::encapsulate(&pk, &attrs("A1, A256, A7"), &mut r).unwrap();
        assert_eq!(G::decapsulate(&key, &header).unwrap(), session);
        match G::encapsulate(&pk, &attrs("A1, A257"), &mut r) {
            Err(KemError::Invalid(m)) => {
                assert!(m.contains("'A257'") && m.contains("universe"), "{m}")
            }
            other => panic!("expected Invalid, got {:?}", other.map(|_| ())),
        }
        match G::keygen(&pk, &mk, &pol("A1 or doctor"), &mut r) {
            Err(KemError::Invalid(m)) => {
                assert!(m.contains("'doctor'") && m.contains("policy"), "{m}")
            }
            other => panic!("expected Invalid, got {:?}", other.map(|_| ())),
        }
        assert!(G::encapsulate(&pk, &AttributeSet::new(), &mut r).is_err());
        // Bad universes.
        assert!(G::setup(&crate::abe::Universe(vec![]), &mut r).is_err());
        assert!(G::setup(&crate::abe::Universe::from_iter(["a", "b", "a"]), &mut r).is_err());
        assert!(G::setup(&crate::abe::Universe::from_iter(["a", ""]), &mut r).is_err());
    }

    /// KP collusion: two keys whose policies each need an attribute the
    /// ciphertext lacks cannot decrypt alone, nor with their rows merged.
    #[test]
    fn collusion_fails() {
        let mut r = rng(4);
        let (pk, mk) = G::setup(
            &crate::abe::Universe::from_iter(["a", "b", "c", "d"]),
            &mut r,
        )
        .unwrap();
        let (session, header) = G::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        let k1 = G::keygen(&pk, &mk, &pol("a and c"), &mut r).unwrap();
        let k2 = G::keygen(&pk, &mk, &pol("b and d"), &mut r).unwrap();
        assert!(matches!(
            G::decapsulate(&k1, &header),
            Err(KemError::NotSatisfied)
        ));
        assert!(matches!(
            G::decapsulate(&k2, &header),
            Err(KemError::NotSatisfied)
        ));
        let merged_policy = pol("a and b");
        for (x, y) in [(0, 0), (1, 1), (0, 1)] {
            let merged = UserKey::<Bls12> {
                setup_id: k1.setup_id,
                policy: PolicyTree::new(merged_policy.clone()).unwrap(),
                rows: Secret(vec![k1.rows[x].clone(), k2.rows[y].clone()]),
            };
            assert_ne!(G::decapsulate(&merged, &header).unwrap(), session);
            let decoded = UserKey::<Bls12>::from_bytes(&merged.to_bytes()).unwrap();
            assert_ne!(G::decapsulate(&decoded, &header).unwrap(), session);
        }
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CG = Gpsw06Small<Counted<Bls12>>;
        let mut r = rng(5);
        let universe: Vec<String> = (1..=20).map(generate::attr_name).collect();
        let (pk, mk) = CG::setup(&crate::abe::Universe::from_iter(&universe), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let policy = generate::flat_and(n).unwrap();
            let set = AttributeSet::from_names(policy.attributes()).unwrap();
            let (key, kg) = OpCounts::measure(|| CG::keygen(&pk, &mk, &policy, &mut r).unwrap());
            assert_eq!(kg.g2_fixed_exp, n as u64, "one g^{{λ_i/t_i}} per row");
            assert_eq!(kg.g1_exp + kg.g2_exp + kg.g1_fixed_exp, 0);
            let ((_, header), enc) =
                OpCounts::measure(|| CG::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_fixed_exp, n as u64, "one T_i^s per attribute");
            assert_eq!(enc.g1_exp + enc.g2_exp + enc.g2_fixed_exp, 0);
            assert_eq!(enc.gt_exp, 1);
            assert_eq!(enc.miller_loops, 0);
            let (_, first) = OpCounts::measure(|| CG::decapsulate(&key, &header).unwrap());
            assert_eq!(first.g2_prepared, n as u64);
            let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.miller_loops, n as u64, "N Miller loops");
            assert_eq!(dec.final_exps, 1, "one final exponentiation");
            assert_eq!(dec.g2_prepared, 0, "all lines cached on the key");
            assert_eq!(dec.g1_exp + dec.g2_exp + dec.gt_exp, 0);
        }
        let key = CG::keygen(&pk, &mk, &pol("2 of (A1, A2, A3)"), &mut r).unwrap();
        let (_, header) = CG::encapsulate(&pk, &attrs("A1, A3"), &mut r).unwrap();
        let (_, dec) = OpCounts::measure(|| CG::decapsulate(&key, &header).unwrap());
        assert_eq!((dec.miller_loops, dec.final_exps, dec.g1_exp), (2, 1, 2));
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(6);
        let (pk, _) = G::setup(&crate::abe::Universe::from_iter(["a", "b"]), &mut r).unwrap();
        let (_, header) = G::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        assert!(super::super::gpsw06::Header::<Bls12>::from_bytes(&header.to_bytes()).is_err());
    }
}
