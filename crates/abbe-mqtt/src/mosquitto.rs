//! A private mosquitto on a free loopback port, for the end-to-end tests,
//! the benchmark and the lab: Debian's broker, never a mock
//! (scripts/install-mosquitto.sh installs it).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Where Debian puts the broker.
const PLACES: [&str; 3] = [
    "/usr/sbin/mosquitto",
    "/usr/bin/mosquitto",
    "/usr/local/sbin/mosquitto",
];

/// The mosquitto binary, if installed.
pub fn find() -> Option<PathBuf> {
    PLACES.iter().map(PathBuf::from).find(|p| p.is_file())
}

/// A TLS listener's server certificate chain and key (PEM files).
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// A running mosquitto, persisting into its directory; killed on drop.
pub struct Mosquitto {
    bin: PathBuf,
    conf: PathBuf,
    port: u16,
    tls: bool,
    child: Option<Child>,
}

impl Mosquitto {
    /// Starts a broker writing its configuration and persistence file into
    /// `dir`; with `tls`, its one listener speaks only TLS, and with
    /// `password_file` (mosquitto_passwd's format) it refuses anonymous
    /// clients.
    pub fn start(
        bin: &Path,
        dir: &Path,
        tls: Option<&TlsFiles>,
        password_file: Option<&Path>,
    ) -> std::io::Result<Mosquitto> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let mut conf = format!(
            "listener {port} 127.0.0.1\npersistence true\npersistence_location {}/\n\
             # The benchmark's subscriber may lag a burst: queue, never drop.\n\
             max_queued_messages 0\nmax_queued_bytes 0\n\
             # Small readings: no Nagle delay on the broker's side either.\n\
             set_tcp_nodelay true\n",
            dir.display()
        );
        match password_file {
            Some(p) => conf += &format!("allow_anonymous false\npassword_file {}\n", p.display()),
            None => conf += "allow_anonymous true\n",
        }
        if let Some(t) = tls {
            conf += &format!(
                "certfile {}\nkeyfile {}\n",
                t.cert.display(),
                t.key.display()
            );
        }
        // Started as root, mosquitto drops to the user `mosquitto`, which
        // cannot write our directory: stay who we are.
        if is_root() {
            conf += "user root\n";
        }
        let path = dir.join("mosquitto.conf");
        std::fs::write(&path, conf)?;
        let mut m = Mosquitto {
            bin: bin.to_owned(),
            conf: path,
            port,
            tls: tls.is_some(),
            child: None,
        };
        m.run()?;
        Ok(m)
    }

    /// Starts the broker again (after [`Mosquitto::stop`]) on the same port
    /// with the same persistence file.
    pub fn run(&mut self) -> std::io::Result<()> {
        self.child = Some(
            Command::new(&self.bin)
                .arg("-c")
                .arg(&self.conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?,
        );
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Err(std::io::Error::other("mosquitto did not start within 5 s"))
    }

    /// SIGTERM: mosquitto writes its persistence file and exits.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(c.id().to_string())
                .status();
            let _ = c.wait();
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mqtt://127.0.0.1:PORT`, or `mqtts://localhost:PORT` with TLS (the
    /// name a test certificate is made for).
    pub fn url(&self) -> String {
        match self.tls {
            true => format!("mqtts://localhost:{}", self.port),
            false => format!("mqtt://127.0.0.1:{}", self.port),
        }
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}
