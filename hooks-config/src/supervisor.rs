//! The supervisor a command hook runs under on Linux, so that nothing it
//! starts outlives it — its background jobs, and also a grandchild that left
//! its process group and session (`setsid`, a double fork), which killing
//! the group misses.
//!
//! The process spawned for a hook is first a supervisor, forked from the
//! agent: it makes itself a child subreaper (`PR_SET_CHILD_SUBREAPER`), so
//! an orphan anywhere below it becomes its child rather than init's; forks
//! the hook's program (in a process group of its own); and waits. When the
//! program exits, or the agent lets go of the lifeline (a timeout, the
//! dispatch dropped, the agent itself gone), or the supervisor is asked to
//! stop (`SIGTERM`, `SIGINT`, `SIGHUP`, `SIGQUIT`), it kills the program's
//! group, then every child it has, until it has none, and exits as the
//! program did. Only the supervisor is a subreaper: the agent's process is
//! unchanged, and no privilege, cgroup or namespace is needed.
//!
//! Not covered: what another service starts on the hook's behalf (`at`,
//! `systemd-run`, a container engine), which is no descendant of it; and a
//! supervisor killed with `SIGKILL` by someone else, which cannot clean up.
//!
//! Between the fork and the exec (or the exit) only async-signal-safe work is
//! allowed: everything below is system calls on stack buffers; nothing
//! allocates, locks or panics.
#![allow(unsafe_code)] // `pre_exec`, `fork` and signal masks, audited above each use.

use std::ffi::CStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::fs::{Mode, OFlags, RawDir, open, openat};
use rustix::io::{Errno, read};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::{
    Pid, Resource, Rlimit, Signal, WaitOptions, WaitStatus, getpgid, getpid, getppid, kill_process,
    kill_process_group, set_child_subreaper, set_parent_process_death_signal, setpgid, setrlimit,
    wait,
};
use tokio::process::Command;

/// The agent's end of the pipe a supervisor watches: while it is open the
/// hook may run; closed (dropped, or the agent gone), the supervisor kills
/// everything the hook started and exits.
pub(crate) struct Lifeline(Option<OwnedFd>);

impl Lifeline {
    /// Lets go: the supervisor ends the hook and everything it started.
    pub(crate) fn cut(&mut self) {
        self.0 = None;
    }
}

/// Whether a supervisor can run here: it reads `/proc` to find the
/// processes it must end. Checked once.
pub(crate) fn available() -> bool {
    static PROC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PROC.get_or_init(|| std::path::Path::new("/proc/self/fd").is_dir())
}

/// Makes `command` start under a supervisor; the lifeline is its leash.
pub(crate) fn supervise(command: &mut Command) -> io::Result<Lifeline> {
    let (watched, held) = pipe_with(PipeFlags::CLOEXEC)?;
    let held_raw = held.as_raw_fd();
    // SAFETY: the closure runs in the child between fork and exec and does
    // only async-signal-safe work (system calls on stack buffers). It owns
    // the watched end, so the agent's copy closes with the command.
    unsafe {
        command.pre_exec(move || start(watched.as_raw_fd(), held_raw));
    }
    Ok(Lifeline(Some(held)))
}

/// In the child of the agent, before exec: becomes the supervisor, forks
/// the program (which returns, to exec) and never returns itself.
fn start(lifeline: RawFd, agents_end: RawFd) -> io::Result<()> {
    // SAFETY: this process's copy of the agent's end, never used here; held
    // open, the supervisor would never see the lifeline close.
    unsafe { rustix::io::close(agents_end) };
    let supervisor = getpid();
    set_child_subreaper(Some(supervisor))?;
    let watched = signals(&[
        libc::SIGCHLD,
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
    ]);
    // Blocked before the fork, so no exit goes unnoticed: read from a
    // signalfd, never handled by whatever handlers the agent installed.
    mask(libc::SIG_BLOCK, &watched)?;
    // SAFETY: fork in a single-threaded process (the agent's child); both
    // sides go on with async-signal-safe work only.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => program(supervisor),
        pid => supervise_program(Pid::from_raw(pid), lifeline, &watched),
    }
}

/// In the program's process, before exec.
fn program(supervisor: Pid) -> io::Result<()> {
    mask(libc::SIG_SETMASK, &signals(&[]))?;
    // A group of its own, so its jobs end together.
    setpgid(None, None)?;
    // If the supervisor is killed outright, the program goes with it.
    set_parent_process_death_signal(Some(Signal::KILL))?;
    if getppid() != Some(supervisor) {
        return Err(Errno::SRCH.into());
    }
    Ok(())
}

fn supervise_program(program: Option<Pid>, lifeline: RawFd, watched: &libc::sigset_t) -> ! {
    let Some(program) = program else {
        exit_as(None)
    };
    close_all_but(lifeline);
    // SAFETY: a signal set made by `signals`; the descriptor is ours.
    let signal_fd = unsafe {
        let fd = libc::signalfd(-1, watched, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
        (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
    };
    let mut status = None;
    while status.is_none() {
        reap(program, &mut status);
        if status.is_some() || stop_asked(lifeline, signal_fd.as_ref()) {
            break;
        }
    }
    end_everything(program, &mut status);
    exit_as(status)
}

/// Waits for something to happen: `true` if the agent let go or a stop
/// signal came, `false` for a child's exit (or a spurious wake).
fn stop_asked(lifeline: RawFd, signal_fd: Option<&OwnedFd>) -> bool {
    // SAFETY: the lifeline stays open in this process until it exits.
    let lifeline = unsafe { std::os::fd::BorrowedFd::borrow_raw(lifeline) };
    let Some(signal_fd) = signal_fd else {
        // No signalfd: look for exits every 10 ms.
        let mut fds = [PollFd::from_borrowed_fd(lifeline, PollFlags::IN)];
        let tick = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 10_000_000,
        };
        return matches!(poll(&mut fds, Some(&tick)), Ok(1..));
    };
    let mut fds = [
        PollFd::from_borrowed_fd(lifeline, PollFlags::IN),
        PollFd::new(signal_fd, PollFlags::IN),
    ];
    if poll(&mut fds, None).is_err() {
        return false;
    }
    if !fds[0].revents().is_empty() {
        return true;
    }
    let mut stop = false;
    let mut info = [0u8; size_of::<libc::signalfd_siginfo>()];
    while let Ok(size) = read(signal_fd, &mut info) {
        if size < 4 {
            break;
        }
        // `ssi_signo`, the first field.
        let signal = u32::from_ne_bytes([info[0], info[1], info[2], info[3]]);
        stop |= i32::try_from(signal).is_ok_and(|signal| signal != libc::SIGCHLD);
    }
    stop
}

/// Reaps every child that has exited, noting the program's status; `false`
/// once there is no child left at all.
fn reap(program: Pid, status: &mut Option<WaitStatus>) -> bool {
    loop {
        match wait(WaitOptions::NOHANG) {
            Ok(Some((pid, exited))) => {
                if pid == program {
                    *status = Some(exited);
                }
            }
            Ok(None) => return true,
            Err(Errno::INTR) => {}
            Err(_) => return false,
        }
    }
}

/// Kills the program's group, then every child (orphans included) until
/// none is left, reaping each.
fn end_everything(program: Pid, status: &mut Option<WaitStatus>) {
    let _ = kill_process_group(program, Signal::KILL);
    if status.is_none() {
        let _ = kill_process(program, Signal::KILL);
    }
    while reap(program, status) {
        kill_children();
        // Until one goes; an orphan of one killed becomes a child here.
        match wait(WaitOptions::empty()) {
            Ok(Some((pid, exited))) if pid == program => *status = Some(exited),
            Ok(_) | Err(Errno::INTR) => {}
            Err(_) => return,
        }
    }
}

/// Kills every child of this process, and the group of each that made one
/// (its id is still that child's: a pid is not reused while its group lives).
fn kill_children() {
    let me = getpid().as_raw_nonzero().get();
    let Ok(proc) = open(c"/proc", dir_flags(), Mode::empty()) else {
        return;
    };
    let mut buffer = [MaybeUninit::<u8>::uninit(); 4096];
    let mut entries = RawDir::new(&proc, &mut buffer);
    while let Some(Ok(entry)) = entries.next() {
        let name = entry.file_name();
        let Some(pid) = number(name.to_bytes()).and_then(Pid::from_raw) else {
            continue;
        };
        if parent(&proc, name) == Some(me) {
            if getpgid(Some(pid)) == Ok(pid) {
                let _ = kill_process_group(pid, Signal::KILL);
            }
            let _ = kill_process(pid, Signal::KILL);
        }
    }
}

/// The parent of the process `/proc/<name>`, from its `stat`.
fn parent(proc: &OwnedFd, name: &CStr) -> Option<i32> {
    let name = name.to_bytes();
    let mut path = [0u8; 32];
    let end = name.len() + b"/stat\0".len();
    path.get_mut(..name.len())?.copy_from_slice(name);
    path.get_mut(name.len()..end)?.copy_from_slice(b"/stat\0");
    let path = CStr::from_bytes_with_nul(&path[..end]).ok()?;
    let stat = openat(proc, path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()).ok()?;
    // `pid (comm) state ppid ...`; a comm is at most 16 bytes, but may hold
    // spaces and parentheses: the fields start after the last `)`.
    let mut text = [0u8; 256];
    let size = read(&stat, &mut text).ok()?;
    let text = &text[..size];
    let close = text.iter().rposition(|&byte| byte == b')')?;
    let mut fields = text[close + 1..]
        .split(|&byte| byte == b' ')
        .filter(|field| !field.is_empty());
    fields.next()?;
    number(fields.next()?)
}

/// Closes every descriptor but `keep`: the supervisor holds nothing of the
/// agent's — not the hook's pipes (the agent reads them to the end), nor the
/// pipe on which the agent learns the exec happened.
fn close_all_but(keep: RawFd) {
    loop {
        let Ok(dir) = open(c"/proc/self/fd", dir_flags(), Mode::empty()) else {
            return;
        };
        let listing = dir.as_raw_fd();
        let mut found = [0; 64];
        let mut count = 0;
        let mut buffer = [MaybeUninit::<u8>::uninit(); 2048];
        let mut entries = RawDir::new(&dir, &mut buffer);
        while let Some(Ok(entry)) = entries.next() {
            let Some(fd) = number(entry.file_name().to_bytes()) else {
                continue;
            };
            if fd != keep && fd != listing && count < found.len() {
                found[count] = fd;
                count += 1;
            }
        }
        if count == 0 {
            return;
        }
        for &fd in &found[..count] {
            // SAFETY: descriptors of this process, which uses none of them.
            unsafe { rustix::io::close(fd) };
        }
    }
}

/// Exits as the program did: its code, or killed by its signal.
fn exit_as(status: Option<WaitStatus>) -> ! {
    if let Some(code) = status.and_then(WaitStatus::exit_status) {
        // SAFETY: ends this process, which holds nothing to flush.
        unsafe { libc::_exit(code) }
    }
    if let Some(signal) = status.and_then(WaitStatus::terminating_signal) {
        // No core file of the supervisor's own.
        let _ = setrlimit(
            Resource::Core,
            Rlimit {
                current: Some(0),
                maximum: Some(0),
            },
        );
        // SAFETY: the default action, unblocked, then raised on ourselves.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            let _ = mask(libc::SIG_UNBLOCK, &signals(&[signal]));
            libc::raise(signal);
        }
        // A signal whose default is not to end the process.
        // SAFETY: as above.
        unsafe { libc::_exit(128 + signal) }
    }
    // SAFETY: as above.
    unsafe { libc::_exit(127) }
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// A decimal number, as `/proc` names processes and descriptors.
fn number(digits: &[u8]) -> Option<i32> {
    if digits.is_empty() || digits.len() > 9 {
        return None;
    }
    digits.iter().try_fold(0i32, |value, &digit| {
        digit
            .is_ascii_digit()
            .then(|| value * 10 + i32::from(digit - b'0'))
    })
}

fn signals(list: &[i32]) -> libc::sigset_t {
    let mut set = MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: `sigemptyset` initialises the set; `sigaddset` takes valid numbers.
    unsafe {
        libc::sigemptyset(set.as_mut_ptr());
        for &signal in list {
            libc::sigaddset(set.as_mut_ptr(), signal);
        }
        set.assume_init()
    }
}

fn mask(how: i32, set: &libc::sigset_t) -> io::Result<()> {
    // SAFETY: a valid set; the process is single-threaded here.
    if unsafe { libc::sigprocmask(how, set, std::ptr::null_mut()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
