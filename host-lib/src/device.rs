//! RDMA device selection: a rocesec engine gets keys programmed into its registers; any other
//! RoCE device (including rxe) gets the software fallback; no device is a clear error.

use crate::error::{Error, Result};
use std::path::Path;

/// How traffic on a device is protected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Protection {
    /// A rocesec engine (its register map: `docs/register-map.md`): keys are programmed into it.
    Engine,
    /// Software protection in this library (any RoCE device, Soft-RoCE rxe included).
    Software,
}

/// One RDMA device found under `/sys/class/infiniband`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Device name (e.g. `rxe0`, `mlx5_0`).
    pub name: String,
    /// Kernel driver (from `device/driver` or the `rxe` prefix).
    pub driver: String,
    /// How it will be protected.
    pub protection: Protection,
}

/// The text of the "no device" error.
pub const NO_DEVICE_HINT: &str = "no RDMA device found under /sys/class/infiniband; for Soft-RoCE \
     load the module and create one on an Ethernet interface: `modprobe rdma_rxe && rdma link add \
     rxe0 type rxe netdev IFACE`";

/// List devices under `sysfs` (normally `/sys/class/infiniband`). A device whose
/// `rocesec_engine` attribute file exists is a rocesec engine (the simulated device of the
/// co-simulation provides one); everything else uses software protection.
///
/// # Errors
/// [`Error::NoDevice`] with [`NO_DEVICE_HINT`] when there is none.
pub fn discover(sysfs: &Path) -> Result<Vec<Device>> {
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(sysfs) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let driver = std::fs::read_link(e.path().join("device/driver"))
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| {
                    if name.starts_with("rxe") {
                        "rdma_rxe".into()
                    } else {
                        "unknown".into()
                    }
                });
            let protection = if e.path().join("rocesec_engine").exists() {
                Protection::Engine
            } else {
                Protection::Software
            };
            v.push(Device {
                name,
                driver,
                protection,
            });
        }
    }
    v.sort_by(|a, b| a.name.cmp(&b.name));
    if v.is_empty() {
        return Err(Error::NoDevice(NO_DEVICE_HINT.into()));
    }
    Ok(v)
}
