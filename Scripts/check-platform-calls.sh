#!/usr/bin/env bash
# Keeps libc/POSIX calls in the Platform layer (DESIGN §18): every `open`, `fstat`, `flock`,
# `fsync`, `sendfile`… lives in a `Platform/` folder with a branch per OS, so the only code we cannot
# compile here (Apple, Musl) is small enough to read line by line.
#
#   bash Scripts/check-platform-calls.sh              # checks Sources/ of this repository
#   bash Scripts/check-platform-calls.sh DIR          # checks DIR/Sources
#   bash Scripts/check-platform-calls.sh --self-test  # plants calls in a temporary tree: must fail there
#
# Fails (exit 1, one `file:line: reason` per finding) when, in a Swift file under Sources/:
# - outside a `Platform/` folder: a libc/POSIX function is called (`close(fd)`, `fstat(fd, &s)`…),
#   a libc name is used (`errno`, `O_RDONLY`, `LOCK_EX`, `off_t`, `pthread_…`, `EINTR`…), a C
#   module is imported (`import Glibc`, `Darwin`, `Musl`…) or named (`Glibc.close`);
# - anywhere, Platform/ included: a Linux-only name (`fdatasync`, `posix_fadvise`, `sendfile`,
#   `mincore`, `O_DIRECT`, `SEEK_DATA`…) stands outside a Linux-only `#if` (`canImport(Glibc)`,
#   `canImport(Musl)`, `os(Linux)`…), or a Darwin-only one (`F_FULLFSYNC`, `SO_NOSIGPIPE`…)
#   outside a Darwin-only `#if`.
#
# Precise enough to run on every commit: comments and the text of string literals are blanked first
# (the code inside `\( … )` interpolations is kept), a member call (`handle.write(…)`,
# `Self.close(fd)`) and a declaration (`func read(…)`) are not libc calls, and an unqualified call
# counts only when it has the C function's number of arguments and no argument label, so
# `write(to: &bytes)`, `close()` and `send(piece)` (Swift methods of the same name) pass.
# Needs bash and perl (both on macOS and every Linux CI image).
set -euo pipefail

read -r -d '' CHECKER <<'PERL' || true
use strict;
use warnings;
$| = 1;

# C functions and the argument counts their calls take (a Swift method of the same name with
# another count, or with labels, is not one of them). `stat` with none is the struct's initializer.
my %arity = (
    open => [2, 3], openat => [3, 4], close => [1], read => [3], write => [3], pread => [4],
    pwrite => [4], readv => [3], writev => [3], lseek => [3], fstat => [2], stat => [0, 2],
    lstat => [2], fstatat => [4], flock => [2], fsync => [1], fdatasync => [1], fcntl => [2, 3],
    ftruncate => [2], truncate => [2], posix_fallocate => [3], fallocate => [4],
    sendfile => [4, 6], splice => [6], copy_file_range => [6], posix_fadvise => [4],
    madvise => [3], mincore => [3], mmap => [6], munmap => [2], unlink => [1], unlinkat => [3],
    rmdir => [1], mkdir => [2], rename => [2], renameat => [4], mkstemp => [1], mkostemp => [2],
    mkdtemp => [1], strerror => [1], strerror_r => [3], socket => [3], bind => [3],
    listen => [2], accept => [3], accept4 => [4], connect => [3], setsockopt => [5],
    getsockopt => [5], getsockname => [3], getpeername => [3], poll => [3], select => [5],
    recv => [4], recvfrom => [6], send => [4], sendto => [6], shutdown => [2], pipe => [1],
    pipe2 => [2], dup => [1], dup2 => [2], usleep => [1], nanosleep => [2], isatty => [1],
    sysconf => [1], getpagesize => [0], realpath => [2], access => [2], chmod => [2],
    fchmod => [2], malloc => [1], free => [1], posix_memalign => [3], getpid => [0],
    kill => [2], sync_file_range => [4], fsetxattr => [5, 6], fgetxattr => [4, 6],
);
my $c_names = join '|', sort keys %arity;

# Names from the C headers that have no business outside Platform/ either.
my $c_identifier = qr/
    errno | off_t | mode_t | ssize_t | socklen_t | sa_family_t | nfds_t | pollfd | sockaddr\w* |
    timeval | timespec | fd_set | pthread_\w+ | os_unfair_lock\w* |
    (?:O|F|LOCK|SEEK|S_IF|POSIX_FADV|MADV|SOCK|AF|PF|SOL|SO|IPPROTO|TCP|MSG|POLL|SHUT|PROT|MAP|FD)_[A-Z][A-Z_]* |
    E(?:INTR|AGAIN|WOULDBLOCK|INVAL|NOSYS|OPNOTSUPP|NOTSUP|NOENT|EXIST|BADF|ACCES|PERM|NOSPC|IO|
       MFILE|NFILE|PIPE|CONNRESET|CONNABORTED|PROTO|NOBUFS|NOMEM|XDEV|ISDIR|NOTDIR|NAMETOOLONG|
       ROFS|BUSY|DEADLK|TIMEDOUT|INPROGRESS)
/x;

my $linux_only = qr/
    fdatasync | posix_fadvise | posix_fallocate | fallocate | mincore | sendfile | splice |
    copy_file_range | sync_file_range | accept4 | pipe2 | epoll_\w+ | inotify_\w+ | eventfd |
    memfd_create | O_DIRECT | O_TMPFILE | O_PATH | SEEK_DATA | SEEK_HOLE | POSIX_FADV_\w+ |
    MSG_NOSIGNAL | FALLOC_\w+ | SPLICE_\w+
/x;
my $darwin_only = qr/
    F_FULLFSYNC | F_NOCACHE | F_PREALLOCATE | F_RDADVISE | SO_NOSIGPIPE | os_unfair_lock\w* |
    sin_len | fcopyfile | clonefile | copyfile
/x;
my $c_module = qr/Glibc|SwiftGlibc|Darwin|Musl|Android|Bionic|ucrt|WinSDK|CRT/;

# The file with comments and the text of string literals replaced by spaces (newlines kept, so
# offsets keep their lines); the code in `\( … )` interpolations is kept.
sub blank {
    my ($s) = @_;
    my $out = '';
    my $n = length $s;
    my @stack = ({ kind => 'code', parens => 0, interpolation => 0 });
    my $i = 0;
    my $spaces = sub { my $t = shift; $t =~ s/[^\n]/ /g; $t };
    while ($i < $n) {
        my $top = $stack[-1];
        my $rest = substr($s, $i, 8);
        if ($top->{kind} eq 'code') {
            if (substr($s, $i, 2) eq '//') {
                my $end = index($s, "\n", $i);
                $end = $n if $end < 0;
                $out .= ' ' x ($end - $i);
                $i = $end;
            } elsif (substr($s, $i, 2) eq '/*') {
                my ($depth, $j) = (0, $i);
                while ($j < $n) {
                    if (substr($s, $j, 2) eq '/*') { $depth++; $j += 2; next; }
                    if (substr($s, $j, 2) eq '*/') { $depth--; $j += 2; last if $depth == 0; next; }
                    $j++;
                }
                $out .= $spaces->(substr($s, $i, $j - $i));
                $i = $j;
            } elsif ($rest =~ /^(#*)"""/) {
                push @stack, { kind => 'string', multi => 1, hashes => length $1 };
                $out .= ' ' x (3 + length $1);
                $i += 3 + length $1;
            } elsif ($rest =~ /^(#*)"/) {
                push @stack, { kind => 'string', multi => 0, hashes => length $1 };
                $out .= ' ' x (1 + length $1);
                $i += 1 + length $1;
            } else {
                my $c = substr($s, $i, 1);
                if ($c eq '(') {
                    $top->{parens}++;
                } elsif ($c eq ')') {
                    if ($top->{interpolation} && $top->{parens} == 0) {
                        pop @stack;
                        $out .= ' ';
                        $i++;
                        next;
                    }
                    $top->{parens}--;
                }
                $out .= $c;
                $i++;
            }
        } else {
            my $h = '#' x $top->{hashes};
            my $close = ($top->{multi} ? '"""' : '"') . $h;
            if (substr($s, $i, length $close) eq $close) {
                pop @stack;
                $out .= ' ' x length $close;
                $i += length $close;
            } elsif (substr($s, $i, 2 + length $h) eq "\\$h(") {
                push @stack, { kind => 'code', parens => 0, interpolation => 1 };
                $out .= ' ' x (2 + length $h);
                $i += 2 + length $h;
            } elsif (substr($s, $i, 1 + length $h) eq "\\$h") {
                $out .= $spaces->(substr($s, $i, 2 + length $h));
                $i += 2 + length $h;
            } else {
                $out .= $spaces->(substr($s, $i, 1));
                $i++;
            }
        }
    }
    return $out;
}

# Whether an `#if`/`#elseif` condition holds only on `$os` ('linux' or 'darwin'): every `||` part
# has a conjunct naming it.
sub only_on {
    my ($condition, $os) = @_;
    my $atom = $os eq 'linux'
        ? qr/^(?:canImport\((?:Glibc|Musl|Android)\)|os\((?:Linux|Android)\))$/
        : qr/^(?:canImport\(Darwin\)|os\((?:macOS|iOS|tvOS|watchOS|visionOS)\)|_runtime\(_ObjC\))$/;
    (my $c = $condition) =~ s/\s+//g;
    return 0 if $c eq '';
    for my $either (split /\|\|/, $c) {
        my $named = 0;
        for my $part (split /&&/, $either) {
            # `((canImport(Glibc))` → `canImport(Glibc)`: as many `)` off the end as `(` off the front.
            my ($open) = $part =~ /^(\(*)/;
            my $n = length $open;
            $part = substr($part, $n, length($part) - 2 * $n) if $n && $part =~ /\){$n}$/;
            $named = 1 if $part =~ $atom;
        }
        return 0 unless $named;
    }
    return 1;
}

my $findings = 0;
my @found;    # this file's findings, printed by line
for my $file (@ARGV) {
    open my $fh, '<', $file or die "cannot read $file: $!\n";
    my $source = do { local $/; <$fh> };
    close $fh;
    my $code = blank($source);
    my $in_platform = $file =~ m{(?:^|/)Platform/};
    my @lines = split /\n/, $code, -1;

    # Per line: whether it sits in a Linux-only / Darwin-only branch.
    my (@linux, @darwin, @frames);
    for my $index (0 .. $#lines) {
        my $line = $lines[$index];
        if ($line =~ /^\s*#(if|elseif)\b(.*)$/) {
            push @frames, {} if $1 eq 'if';
            @{$frames[-1]}{qw(linux darwin)} = (only_on($2, 'linux'), only_on($2, 'darwin')) if @frames;
        } elsif ($line =~ /^\s*#else\b/) {
            @{$frames[-1]}{qw(linux darwin)} = (0, 0) if @frames;
        } elsif ($line =~ /^\s*#endif\b/) {
            pop @frames;
        }
        $linux[$index] = grep { $_->{linux} } @frames;
        $darwin[$index] = grep { $_->{darwin} } @frames;
    }

    my @starts = (0);
    push @starts, pos($code) while $code =~ /\n/g;
    my $line_of = sub {
        my $offset = shift;
        my ($low, $high) = (0, $#starts);
        while ($low < $high) {
            my $mid = int(($low + $high + 1) / 2);
            if ($starts[$mid] <= $offset) { $low = $mid } else { $high = $mid - 1 }
        }
        return $low;
    };
    my %seen;
    my $report = sub {
        my ($offset, $reason) = @_;
        my $line = $line_of->($offset) + 1;
        return if $seen{"$line $reason"}++;
        push @found, [$line, "$file:$line: $reason"];
        $findings++;
    };

    while ($code =~ /(?<![\w.\$`])($linux_only)(?!\w)/g) {
        my ($name, $at) = ($1, $-[1]);
        $report->($at, "$name is Linux-only: put it in a Linux-only #if (canImport(Glibc) / canImport(Musl))")
            unless $linux[$line_of->($at)];
    }
    while ($code =~ /(?<![\w.\$`])($darwin_only)(?!\w)/g) {
        my ($name, $at) = ($1, $-[1]);
        $report->($at, "$name is Darwin-only: put it in an #if canImport(Darwin)")
            unless $darwin[$line_of->($at)];
    }
    next if $in_platform;

    while ($code =~ /^[ \t]*(?:@\w+[ \t]+)*import[ \t]+(?:(?:struct|class|enum|func|var|let|typealias|protocol)[ \t]+)?($c_module)\b/mg) {
        $report->($-[1], "import $1 outside Platform/: call a wrapper in Platform/ instead");
    }
    while ($code =~ /(?<![\w.])($c_module)\s*\.\s*[A-Za-z_]/g) {
        $report->($-[1], "$1.… outside Platform/: call a wrapper in Platform/ instead");
    }
    while ($code =~ /(?<![\w.\$`])($c_identifier)(?!\w)/g) {
        $report->($-[1], "libc name $1 outside Platform/: use a wrapper in Platform/");
    }
    while ($code =~ /(?<![\w.\$`])($c_names)\s*\(/g) {
        my ($name, $at, $open) = ($1, $-[1], $+[0]);
        # A declaration (`func read(`, `case write(`) is not a call.
        next if substr($code, 0, $at) =~ /(?:\bfunc|\bcase|\binit|\bsubscript)\s*$/;
        # The arguments, split at top-level commas.
        my ($depth, $j, $current, @arguments) = (0, $open, '');
        while ($j < length $code) {
            my $c = substr($code, $j, 1);
            if ($c =~ /[(\[{]/) { $depth++ }
            elsif ($c =~ /[)\]}]/) { last if $depth == 0; $depth-- }
            if ($c eq ',' && $depth == 0) { push @arguments, $current; $current = ''; }
            else { $current .= $c }
            $j++;
        }
        push @arguments, $current if @arguments || $current =~ /\S/;
        next if grep { /^\s*[A-Za-z_]\w*\s*:(?!:)/ } @arguments;    # a label: a Swift function
        next unless grep { $_ == scalar @arguments } @{$arity{$name}};
        $report->($at, "libc call $name(…) outside Platform/: call a wrapper in Platform/");
    }
} continue {
    print "$_->[1]\n" for sort { $a->[0] <=> $b->[0] } @found;
    @found = ();
}
if ($findings) {
    print STDERR "check-platform-calls: $findings finding(s); libc/POSIX calls belong in a Platform/ folder, "
        . "Linux-only and Darwin-only ones in an #if of their OS (see Scripts/check-platform-calls.sh).\n";
    exit 1;
}
exit 0;
PERL

# Checks every Swift file under "$1/Sources".
check_tree() {
    local root=$1
    local files=()
    while IFS= read -r -d '' file; do files+=("$file"); done \
        < <(find "$root/Sources" -name '*.swift' -type f -print0 | LC_ALL=C sort -z)
    if [ ${#files[@]} -eq 0 ]; then
        echo "check-platform-calls: no Swift files under $root/Sources" >&2
        return 1
    fi
    (cd "$root" && perl -e "$CHECKER" -- "${files[@]#"$root"/}")
}

# Plants calls in a temporary tree: the check must name exactly these lines and pass the clean
# files (comments, strings, Swift methods named like C functions, guarded Linux-only calls).
self_test() {
    local tree
    tree=$(mktemp -d)
    trap 'rm -rf "$tree"' RETURN
    mkdir -p "$tree/Sources/Lib/Platform" "$tree/Sources/Lib/Consume"
    cat >"$tree/Sources/Lib/Consume/Clean.swift" <<'SWIFT'
import Foundation

/// Closes the file: calls `close(fd)` and `fsync(descriptor)` (doc text, not code).
struct Clean {
    // write(fd, buffer, count) in a comment; posix_fadvise(fd, 0, 0, 0) too
    /* a block comment: open(path, flags) /* nested: sendfile(a, b, c, d) */ still comment */
    func read(_ a: Int, _ b: Int, _ c: Int) -> Int { a }
    func close() {}
    mutating func run(handle: FileHandle, data: Data) throws {
        try handle.write(contentsOf: data)
        let url = "https://example.com/open(a, b)"
        let text = """
            fsync(fd) and errno in a multi-line string
            """
        let raw = #"close(fd) in a raw string \(not interpolated)"#
        try write(data, to: url)
        close()
        send(data)
        _ = readAll(1, 2, 3)
        _ = Self.read(1, 2, 3)
        _ = "\(url.count) then \(text.count + raw.count)"
    }
    func write(_ data: Data, to: String) throws {}
    func send(_ data: Data) {}
    func readAll(_ a: Int, _ b: Int, _ c: Int) -> Int { a }
    static func read(_ a: Int, _ b: Int, _ c: Int) -> Int { a }
}
SWIFT
    cat >"$tree/Sources/Lib/Platform/Sync.swift" <<'SWIFT'
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum Sync {
    static func flush(_ fd: Int32) -> Int32 {
        #if canImport(Glibc) || canImport(Musl)
            return fdatasync(fd)
        #elseif canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
            return fsync(fd)
        #else
            return fsync(fd)
        #endif
    }
}
SWIFT
    echo "Self-test: a clean tree passes"
    if ! check_tree "$tree"; then
        echo "check-platform-calls self-test FAILED: the clean tree was refused" >&2
        return 1
    fi
    cat >"$tree/Sources/Lib/Consume/Planted.swift" <<'SWIFT'
import Foundation
import Glibc

func planted(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    _ = close(fd)
    let moved = pwrite(
        fd, nil,
        0, 0)
    return "cannot read \(path): \(String(cString: strerror(errno))) \(moved)"
}
SWIFT
    cat >"$tree/Sources/Lib/Platform/Advise.swift" <<'SWIFT'
enum Advise {
    static func willNeed(_ fd: Int32) {
        #if canImport(Darwin)
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED)
        #else
            _ = fdatasync(fd)
        #endif
    }
}
SWIFT
    local expected output status=0
    expected=$(
        cat <<'LIST'
Sources/Lib/Consume/Planted.swift:10: libc call strerror
Sources/Lib/Consume/Planted.swift:10: libc name errno
Sources/Lib/Consume/Planted.swift:2: import Glibc
Sources/Lib/Consume/Planted.swift:5: libc call open
Sources/Lib/Consume/Planted.swift:5: libc name O_RDONLY
Sources/Lib/Consume/Planted.swift:6: libc call close
Sources/Lib/Consume/Planted.swift:7: libc call pwrite
Sources/Lib/Platform/Advise.swift:4: POSIX_FADV_WILLNEED is Linux-only
Sources/Lib/Platform/Advise.swift:4: posix_fadvise is Linux-only
Sources/Lib/Platform/Advise.swift:6: fdatasync is Linux-only
LIST
    )
    echo "Self-test: planted calls must be refused"
    output=$(check_tree "$tree" 2>&1) || status=$?
    printf '%s\n' "$output"
    local found
    found=$(printf '%s\n' "$output" | grep '^Sources/' \
        | sed -E 's/^([^:]+:[0-9]+: )(libc call [a-z_0-9]+|libc name [A-Za-z_0-9]+|import [A-Za-z]+|[A-Za-z_0-9]+ is Linux-only).*/\1\2/' \
        | LC_ALL=C sort)
    if [ "$status" -ne 1 ] || [ "$found" != "$(printf '%s\n' "$expected" | LC_ALL=C sort)" ]; then
        echo "check-platform-calls self-test FAILED (exit $status); expected exactly:" >&2
        printf '%s\n' "$expected" >&2
        return 1
    fi
    echo "check-platform-calls self-test passed: the check refuses each planted call and passes the clean files"
}

if [ "${1:-}" = "--self-test" ]; then
    self_test
else
    check_tree "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
fi
