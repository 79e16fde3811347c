// Calls libhockeystick_c from Rust through `extern "C"` declarations of hockeystick/hockeystick.h (no crates):
//   rustc cpp/capi/tests/capi_check.rs -L <dir> -l hockeystick_c -C link-arg=-Wl,-rpath,<dir> -o capi_check_rs
// Prints "version V", "theta r eps value", "sigma eps delta value", "refused status message" and, where the
// library has the PLD calls, "bracket sigma q rounds h delta lower upper", for tests/core/test_capi.py.
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
    fn hs_version() -> *const c_char;
    fn hs_last_error() -> *const c_char;
    fn hs_has_pld() -> c_int;
    fn hs_theta(r: f64, epsilon: f64, out: *mut f64) -> HsStatus;
    fn hs_gaussian_sigma(epsilon: f64, delta: f64, sensitivity: f64, out: *mut f64) -> HsStatus;
    fn hs_pld_subsampled_gaussian(sigma: f64, sampling_rate: f64, interval: f64, out: *mut *mut HsPld) -> HsStatus;
    fn hs_pld_self_compose(pld: *const HsPld, count: c_longlong, out: *mut *mut HsPld) -> HsStatus;
    fn hs_pld_epsilon_bracket(pld: *const HsPld, delta: f64, lower: *mut f64, upper: *mut f64) -> HsStatus;
    fn hs_pld_free(pld: *mut HsPld);
}

fn text(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

// The value a call wrote, or the library's reason for refusing it.
fn checked(status: HsStatus, value: f64) -> Result<f64, String> {
    if status == 0 {
        Ok(value)
    } else {
        Err(format!("{} {}", status, text(unsafe { hs_last_error() })))
    }
}

fn theta(r: f64, epsilon: f64) -> Result<f64, String> {
    let mut out = 0.0;
    let status = unsafe { hs_theta(r, epsilon, &mut out) };
    checked(status, out)
}

fn sigma(epsilon: f64, delta: f64) -> Result<f64, String> {
    let mut out = 0.0;
    let status = unsafe { hs_gaussian_sigma(epsilon, delta, 1.0, &mut out) };
    checked(status, out)
}

fn bracket(sigma: f64, q: f64, rounds: i64, h: f64, delta: f64) -> Result<(f64, f64), String> {
    let (mut one, mut composed) = (std::ptr::null_mut(), std::ptr::null_mut());
    let (mut lower, mut upper) = (0.0, 0.0);
    unsafe {
        checked(hs_pld_subsampled_gaussian(sigma, q, h, &mut one), 0.0)?;
        let made = checked(hs_pld_self_compose(one, rounds, &mut composed), 0.0);
        hs_pld_free(one);
        made?;
        let read = checked(hs_pld_epsilon_bracket(composed, delta, &mut lower, &mut upper), 0.0);
        hs_pld_free(composed);
        read?;
    }
    Ok((lower, upper))
}

fn main() -> Result<(), String> {
    println!("version {}", text(unsafe { hs_version() }));
    // {:e} prints the shortest digits that read back the same double
    println!("theta {:e} {:e} {:e}", 1.0, 1.0, theta(1.0, 1.0)?);
    println!("sigma {:e} {:e} {:e}", 1.0, 1e-5, sigma(1.0, 1e-5)?);
    match theta(-1.0, 1.0) {
        Ok(v) => return Err(format!("theta(-1, 1) was not refused: {}", v)),
        Err(why) => println!("refused {}", why),
    }
    if unsafe { hs_has_pld() } == 1 {
        let (lower, upper) = bracket(1.0, 0.01, 1000, 1e-3, 1e-5)?;
        println!("bracket {:e} {:e} {} {:e} {:e} {:e} {:e}", 1.0, 0.01, 1000, 1e-3, 1e-5, lower, upper);
    }
    Ok(())
}
