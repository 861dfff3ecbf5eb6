#!/usr/bin/env python3
"""panel_capture.py - the live panel seen through a pseudo-terminal: starts
cuk in a pty (TERM=vt100, 120x32), runs a statement that takes a while
(`ladder` by default), and keeps the screen as the terminal would show it,
read back from cuk's output by a small VT100 screen model. Saves every
frame taken while the command ran (FRAMES.txt), the first that shows each
GPU's live state (running.txt), and exits 0 only if that state appeared:
utilization, clocks, power and temperature, while the title said
"running".

usage: panel_capture.py CUK OUTDIR [STATEMENT]"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

ROWS, COLS = 32, 120
LIVE = re.compile(r"GPU \d+ now: \d+% busy.*SM \d+ of \d+ MHz.* W of .* W .*\d+ C")
STATEMENT = "ladder naive tiled fast cublas: A @ B for n in 2048 4096 8192"


class Screen:
    """What a VT100 shows: enough of it for ncurses' output to TERM=vt100
    (cursor addressing, erasing, a scrolling region, save/restore)."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.grid = [[" "] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.top, self.bottom = 0, rows - 1
        self.saved = (0, 0)
        self.pending = ""   # an escape sequence not yet complete
        self.wrap = False   # the last column was written: the next character wraps

    def text(self):
        return "\n".join("".join(r).rstrip() for r in self.grid)

    def scroll_up(self):
        del self.grid[self.top]
        self.grid.insert(self.bottom, [" "] * self.cols)

    def scroll_down(self):
        del self.grid[self.bottom]
        self.grid.insert(self.top, [" "] * self.cols)

    def line_feed(self):
        if self.y == self.bottom:
            self.scroll_up()
        elif self.y < self.rows - 1:
            self.y += 1

    def put(self, ch):
        if self.wrap:
            self.x = 0
            self.line_feed()
            self.wrap = False
        self.grid[self.y][self.x] = ch
        if self.x == self.cols - 1:
            self.wrap = True
        else:
            self.x += 1

    def erase_line(self, how):
        row = self.grid[self.y]
        lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1), 2: (0, self.cols)}.get(how, (self.x, self.cols))
        for i in range(lo, hi):
            row[i] = " "

    def erase_screen(self, how):
        if how in (0, 2):
            self.erase_line(0 if how == 0 else 2)
        rows = range(self.y + 1, self.rows) if how == 0 else range(0, self.y) if how == 1 else range(self.rows)
        for r in rows:
            self.grid[r] = [" "] * self.cols
        if how == 1:
            self.erase_line(1)

    def csi(self, params, final):
        private = params.startswith("?")
        nums = [int(p) if p.isdigit() else 0 for p in params.lstrip("?").split(";")] if params.lstrip("?") else []
        n = nums[0] if nums and nums[0] else 1
        self.wrap = False
        if private or final in "mhlsu":
            return
        if final in "Hf":
            self.y = min(max((nums[0] if nums and nums[0] else 1) - 1, 0), self.rows - 1)
            self.x = min(max((nums[1] if len(nums) > 1 and nums[1] else 1) - 1, 0), self.cols - 1)
        elif final == "A":
            self.y = max(self.y - n, 0)
        elif final == "B":
            self.y = min(self.y + n, self.rows - 1)
        elif final == "C":
            self.x = min(self.x + n, self.cols - 1)
        elif final == "D":
            self.x = max(self.x - n, 0)
        elif final == "K":
            self.erase_line(nums[0] if nums else 0)
        elif final == "J":
            self.erase_screen(nums[0] if nums else 0)
        elif final == "r":
            self.top = (nums[0] - 1) if nums and nums[0] else 0
            self.bottom = (nums[1] - 1) if len(nums) > 1 and nums[1] else self.rows - 1
            self.y = self.x = 0
        elif final == "d":
            self.y = min(max(n - 1, 0), self.rows - 1)
        elif final == "G":
            self.x = min(max(n - 1, 0), self.cols - 1)
        elif final == "X":
            for i in range(self.x, min(self.x + n, self.cols)):
                self.grid[self.y][i] = " "
        elif final == "P":
            row = self.grid[self.y]
            del row[self.x:self.x + n]
            row.extend([" "] * (self.cols - len(row)))
        elif final == "@":
            row = self.grid[self.y]
            for _ in range(n):
                row.insert(self.x, " ")
            del row[self.cols:]
        elif final == "L":
            for _ in range(n):
                del self.grid[self.bottom]
                self.grid.insert(self.y, [" "] * self.cols)
        elif final == "M":
            for _ in range(n):
                del self.grid[self.y]
                self.grid.insert(self.bottom, [" "] * self.cols)

    def feed(self, text):
        s = self.pending + text
        self.pending = ""
        i = 0
        while i < len(s):
            c = s[i]
            if c == "\x1b":
                m = re.match(r"\x1b\[([0-9;?]*)([@-~])", s[i:])
                if m:
                    self.csi(m.group(1), m.group(2))
                    i += m.end()
                    continue
                if i + 1 >= len(s) or (s[i + 1] in "()" and i + 2 >= len(s)) or (s[i + 1] == "[" and not m):
                    self.pending = s[i:]   # the rest of the sequence comes with the next read
                    return
                nxt = s[i + 1]
                if nxt == "7":
                    self.saved = (self.y, self.x)
                elif nxt == "8":
                    self.y, self.x = self.saved
                elif nxt == "M":
                    if self.y == self.top:
                        self.scroll_down()
                    elif self.y > 0:
                        self.y -= 1
                elif nxt == "D":
                    self.line_feed()
                elif nxt == "E":
                    self.x = 0
                    self.line_feed()
                i += 3 if nxt in "()" else 2
                continue
            if c == "\r":
                self.x, self.wrap = 0, False
            elif c == "\n":
                self.wrap = False
                self.line_feed()
            elif c == "\b":
                self.x, self.wrap = max(self.x - 1, 0), False
            elif c == "\t":
                self.x = min((self.x // 8 + 1) * 8, self.cols - 1)
            elif c >= " ":
                self.put(c)
            i += 1


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cuk, out = sys.argv[1], sys.argv[2]
    statement = sys.argv[3] if len(sys.argv) > 3 else STATEMENT
    os.makedirs(out, exist_ok=True)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(TERM="vt100", LANG="C.UTF-8", LC_ALL="C.UTF-8", CUK_HISTORY="/dev/null")
        os.execv(cuk, [cuk])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    screen, decoder = Screen(ROWS, COLS), __import__("codecs").getincrementaldecoder("utf-8")("replace")

    def pump(seconds):
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                screen.feed(decoder.decode(data))
        return True

    def wait_for(pattern, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if not pump(0.2):
                return False
            if re.search(pattern, screen.text(), re.M):
                return True
        return False

    frames, first_live = [], None
    if not wait_for(r"\| ready\s*$", 30):
        sys.exit("panel_capture: cuk did not come up with its panel:\n" + screen.text())
    os.write(fd, (statement + "\r").encode())
    t0 = time.time()
    while time.time() - t0 < 240:
        if not pump(0.5):
            break
        shot = screen.text()
        title = shot.splitlines()[0] if shot else ""
        if "running" in title:
            frames.append("--- %.1f s\n%s" % (time.time() - t0, shot))
            if first_live is None and LIVE.search(shot):
                first_live = shot
        elif frames:   # it has finished
            break
    pump(1)
    after = screen.text()
    os.write(fd, b"quit\r")
    pump(2)
    with open(os.path.join(out, "frames.txt"), "w") as f:
        f.write("\n".join(frames) + "\n")
    with open(os.path.join(out, "after.txt"), "w") as f:
        f.write(after + "\n")
    if first_live is None:
        print("FAIL panel_live_state: no frame showed the GPUs' state while `%s` ran (%d frames); the last:\n%s"
              % (statement, len(frames), frames[-1] if frames else after))
        sys.exit(1)
    with open(os.path.join(out, "running.txt"), "w") as f:
        f.write(first_live + "\n")
    print(first_live)
    print("PASS panel_live_state: utilization, clocks, power and temperature while `%s` ran (%d frames)"
          % (statement, len(frames)))


if __name__ == "__main__":
    main()
