// Calls libhockeystick_c's mechanisms and its composition from Rust through `extern "C"` declarations of
// hockeystick/hockeystick.h (no crates):
//   rustc cpp/capi/tests/capi_mechanisms.rs -L <dir> -l hockeystick_c -C link-arg=-Wl,-rpath,<dir> -o capi_mech_rs
// Prints, where the library has the PLD calls, "composed scale q sigma batch_size n h delta lower upper rounds": the
// Poisson-subsampled Laplace mechanism composed with the fixed-size subsampled Gaussian, its epsilon bracket at
// delta and rounds; and
// "refused status message" for a batch larger than the data set.  For tests/core/test_capi_mechanisms.py.
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_longlong};

// hs_status is a C enum: an int, HS_OK = 0.
type HsStatus = c_int;

// The opaque hs_pld: only ever behind a pointer.
#[repr(C)]
struct HsPld {
    _private: [u8; 0],
}

#[link(name = "hockeystick_c")]
extern "C" {
    fn hs_last_error() -> *const c_char;
    fn hs_has_pld() -> c_int;
    fn hs_pld_laplace(
        scale: f64,
        sensitivity: f64,
        sampling_rate: f64,
        interval: f64,
        out: *mut *mut HsPld,
    ) -> HsStatus;
    fn hs_pld_fixed_size_gaussian(
        sigma: f64,
        batch_size: c_longlong,
        n: c_longlong,
        sensitivity: f64,
        interval: f64,
        out: *mut *mut HsPld,
    ) -> HsStatus;
    fn hs_pld_compose(a: *const HsPld, b: *const HsPld, out: *mut *mut HsPld) -> HsStatus;
    fn hs_pld_epsilon_bracket(
        pld: *const HsPld,
        delta: f64,
        lower: *mut f64,
        upper: *mut f64,
    ) -> HsStatus;
    fn hs_pld_rounds(pld: *const HsPld, out: *mut c_longlong) -> HsStatus;
    fn hs_pld_free(pld: *mut HsPld);
}

// A handle freed when it goes out of scope.
struct Pld(*mut HsPld);

impl Drop for Pld {
    fn drop(&mut self) {
        unsafe { hs_pld_free(self.0) }
    }
}

fn checked(status: HsStatus) -> Result<(), String> {
    if status == 0 {
        Ok(())
    } else {
        let why = unsafe { CStr::from_ptr(hs_last_error()) }
            .to_string_lossy()
            .into_owned();
        Err(format!("{} {}", status, why))
    }
}

fn made(call: impl FnOnce(*mut *mut HsPld) -> HsStatus) -> Result<Pld, String> {
    let mut out = std::ptr::null_mut();
    checked(call(&mut out))?;
    Ok(Pld(out))
}

fn main() -> Result<(), String> {
    if unsafe { hs_has_pld() } != 1 {
        return Ok(());
    }
    let (scale, q, sigma, batch_size, n, h, delta) = (2.0, 0.3, 1.5, 10, 100, 1e-3, 1e-5);
    let laplace = made(|out| unsafe { hs_pld_laplace(scale, 1.0, q, h, out) })?;
    let fixed =
        made(|out| unsafe { hs_pld_fixed_size_gaussian(sigma, batch_size, n, 1.0, h, out) })?;
    let both = made(|out| unsafe { hs_pld_compose(laplace.0, fixed.0, out) })?;
    let (mut lower, mut upper, mut rounds) = (0.0, 0.0, 0);
    checked(unsafe { hs_pld_epsilon_bracket(both.0, delta, &mut lower, &mut upper) })?;
    checked(unsafe { hs_pld_rounds(both.0, &mut rounds) })?;
    // {:e} prints the shortest digits that read back the same double
    println!(
        "composed {:e} {:e} {:e} {} {} {:e} {:e} {:e} {:e} {}",
        scale, q, sigma, batch_size, n, h, delta, lower, upper, rounds
    );
    match made(|out| unsafe { hs_pld_fixed_size_gaussian(sigma, 200, 100, 1.0, h, out) }) {
        Ok(_) => return Err("batch_size 200 > n 100 was not refused".to_string()),
        Err(why) => println!("refused {}", why),
    }
    Ok(())
}
