;;; test-eglot.el --- asyncfix-lsp driven by Emacs's eglot in batch mode  -*- lexical-binding: t -*-

;; A real-client test: Emacs 28 with eglot 1.9 (Debian's emacs-nox and elpa-eglot) against the
;; real asyncfix-lsp. Run by CTest (label `editor`) as
;;
;;   emacs --batch -q -l test-eglot.el
;;
;; (-q, not -Q: -Q would hide Debian's site-lisp, where elpa-eglot lives) with ASYNCFIX_LSP_BIN
;; and ASYNCFIX_SCENARIO_DIR in the environment.  Batch mode runs no idle timers and no
;; post-command hooks, so the test starts eglot and flymake itself and sends eglot's pending
;; didChange explicitly.  Every wait is bounded; a failure prints what eglot saw and exits 1.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'python)
(require 'eglot)

(defvar asyncfix-test-lsp (or (getenv "ASYNCFIX_LSP_BIN") (error "ASYNCFIX_LSP_BIN is not set")))
(defvar asyncfix-test-scenario (or (getenv "ASYNCFIX_SCENARIO_DIR") (error "ASYNCFIX_SCENARIO_DIR is not set")))
(defvar asyncfix-test-timeout
  (let ((ms (getenv "ASYNCFIX_TEST_TIMEOUT_MS"))) (if ms (/ (string-to-number ms) 1000.0) 20.0)))
(defvar asyncfix-test-menus nil "The code-action menus eglot offered, newest first.")
(defvar asyncfix-test-messages nil "The server's window/showMessage and window/logMessage texts.")
(defvar asyncfix-test-published (make-hash-table :test #'equal)
  "URI -> the document version of the server's latest publishDiagnostics.")

;; The README's recipe, with the server's settings as initializationOptions (AF001 ignored until
;; the test changes the workspace configuration).
(add-to-list 'eglot-server-programs
             `(python-mode . (,asyncfix-test-lsp "--log-level" "debug"
                                                  :initializationOptions (:asyncfix (:ignore ["AF001"])))))
(setq eglot-autoshutdown nil
      ;; Apply the server's workspace/applyEdit without a y-or-n-p (batch mode has no one to ask).
      eglot-confirm-server-initiated-edits nil
      eglot-sync-connect asyncfix-test-timeout
      eglot-connect-timeout asyncfix-test-timeout
      eglot-events-buffer-size 200000)

(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &key uri version &allow-other-keys)
  (puthash uri version asyncfix-test-published))
(cl-defmethod eglot-handle-notification :before (_server (_method (eql window/logMessage)) &key message &allow-other-keys)
  (push (concat "logMessage: " message) asyncfix-test-messages))
(cl-defmethod eglot-handle-notification :before (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (push (concat "showMessage: " message) asyncfix-test-messages))

;;; Helpers

(defun asyncfix-test-log (format-string &rest args)
  (princ (concat (apply #'format format-string args) "\n") #'external-debugging-output))

(defun asyncfix-test-wait (what predicate)
  "Process events until PREDICATE returns non-nil; fail after the timeout naming WHAT."
  (let ((deadline (+ (float-time) asyncfix-test-timeout)))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "Timed out after %ss waiting for %s" asyncfix-test-timeout what))
      (accept-process-output nil 0.02))))

(defun asyncfix-test-expect (actual expected what)
  (unless (equal actual expected)
    (error "%s: expected %S, got %S" what expected actual)))

(defun asyncfix-test-file (path)
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally path)
    (buffer-string)))

(defun asyncfix-test-expect-file (path expected-path)
  (let ((actual (asyncfix-test-file path)) (expected (asyncfix-test-file expected-path)))
    (unless (equal actual expected)
      (error "%s differs from %s; got:\n%s" path expected-path (decode-coding-string actual 'utf-8)))))

(defun asyncfix-test-diagnostics ()
  "The flymake diagnostics of the current buffer as (CODE LINE COLUMN END-COLUMN): 0-based
line, columns in characters (code points), sorted by position."
  (sort
   (cl-loop for d in (flymake-diagnostics)
            for lsp = (cdr (assq 'eglot-lsp-diag (eglot--diag-data d)))
            for beg = (flymake-diagnostic-beg d)
            for end = (flymake-diagnostic-end d)
            collect (save-excursion
                      (goto-char beg)
                      (let ((bol (line-beginning-position)))
                        (list (plist-get lsp :code) (1- (line-number-at-pos beg)) (- beg bol)
                              (- end bol)))))
   (lambda (a b) (or (< (nth 1 a) (nth 1 b)) (and (= (nth 1 a) (nth 1 b)) (< (nth 2 a) (nth 2 b)))))))

(defun asyncfix-test-settle (what predicate)
  "Wait until the server has published diagnostics for the buffer's current version and
PREDICATE holds for them."
  (let ((buffer (current-buffer)))
    (asyncfix-test-wait what (lambda ()
                               (with-current-buffer buffer
                                 (and (equal (gethash (eglot--path-to-uri buffer-file-name) asyncfix-test-published)
                                             eglot--versioned-identifier)
                                      (progn
                                        ;; The backend hands eglot's latest diagnostics to flymake.
                                        (flymake-start)
                                        (funcall predicate (asyncfix-test-diagnostics)))))))))

(defun asyncfix-test-flush ()
  "Send the edits eglot keeps for its idle timer (which never fires in batch mode)."
  (eglot--signal-textDocument/didChange))

(defun asyncfix-test-goto (line column)
  (goto-char (point-min))
  (forward-line line)
  (forward-char column))

(defun asyncfix-test-code-action (title)
  "Run `eglot-code-actions' at point as a user would and pick TITLE from its menu."
  (let (offered)
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (setq offered (mapcar #'car collection))
                 (push offered asyncfix-test-menus)
                 (unless (member title offered)
                   (error "No code action titled %S among %S" title offered))
                 title)))
      ;; A keyboard event, not a mouse click: eglot asks with completing-read.
      (let ((last-nonmenu-event ?\r))
        (eglot-code-actions (point) (point) nil t)))
    offered))

(defun asyncfix-test-dump ()
  (asyncfix-test-log "--- diagnostics in Emacs (code, 0-based line, character columns):")
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and buffer-file-name (bound-and-true-p flymake-mode))
        (dolist (d (asyncfix-test-diagnostics))
          (asyncfix-test-log "  %s %S" buffer-file-name d)))))
  (asyncfix-test-log "--- code action menus:")
  (dolist (menu (reverse asyncfix-test-menus))
    (asyncfix-test-log "  %s" (string-join menu " | ")))
  (asyncfix-test-log "--- server messages:")
  (dolist (m (reverse asyncfix-test-messages))
    (asyncfix-test-log "  %s" m))
  (when-let ((server (ignore-errors (car (hash-table-values eglot--servers-by-project)))))
    (when-let ((events (ignore-errors (jsonrpc-events-buffer (car server)))))
      (with-current-buffer events
        (asyncfix-test-log "--- the last of eglot's events buffer:\n%s"
                           (buffer-substring-no-properties (max (point-min) (- (point-max) 6000))
                                                           (point-max)))))))

;;; The scenario

(defvar asyncfix-test-dir (make-temp-file "asyncfix-eglot" t))
(defvar asyncfix-test-train (expand-file-name "train.py" asyncfix-test-dir))
(with-temp-file (expand-file-name "pyproject.toml" asyncfix-test-dir)
  (insert "[project]\nname = \"legacy\"\n"))
(copy-file (expand-file-name "legacy_train.py" asyncfix-test-scenario) asyncfix-test-train)

(defvar asyncfix-test-steps nil)
(defmacro asyncfix-test-step (name &rest body)
  (declare (indent 1))
  `(push (cons ,name (lambda () ,@body)) asyncfix-test-steps))

(defvar asyncfix-test-server nil)

(asyncfix-test-step "eglot starts asyncfix-lsp for a Python buffer"
  (find-file asyncfix-test-train)
  (asyncfix-test-expect major-mode 'python-mode "major mode")
  ;; What M-x eglot does, without its prompts; eglot-ensure would wait for a command loop.
  (apply #'eglot (eglot--guess-contact))
  (asyncfix-test-wait "the connection" (lambda () (eglot-current-server)))
  (setq asyncfix-test-server (eglot-current-server))
  (asyncfix-test-expect (plist-get (eglot--server-info asyncfix-test-server) :name) "asyncfix" "serverInfo.name"))

(asyncfix-test-step "diagnostics for a legacy PyTorch file, at the right columns"
  (asyncfix-test-settle "three AF101 diagnostics" (lambda (ds) (= (length ds) 3)))
  ;; Line 8: "température → 😀" before `async=`: character 55, UTF-16 unit 56, byte 61. eglot
  ;; 1.9 counts the server's UTF-16 columns back into characters.
  (asyncfix-test-expect (asyncfix-test-diagnostics)
                        '(("AF101" 7 29 34) ("AF101" 8 55 60) ("AF101" 17 34 39))
                        "diagnostics (AF001 ignored through initializationOptions)")
  (let ((messages (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
    (unless (cl-every (lambda (m) (string-prefix-p "asyncfix [AF101]: `async=` is a syntax error" m)) messages)
      (error "Unexpected diagnostic texts: %S" messages))))

(asyncfix-test-step "typing on the multi-byte line moves the diagnostic (incremental sync in UTF-16)"
  (asyncfix-test-goto 8 0)
  (search-forward "😀")
  (backward-char)
  (insert "ü😀")                      ; 2 characters, 3 UTF-16 units, 6 bytes
  (asyncfix-test-flush)
  (asyncfix-test-settle "AF101 2 characters further right"
                        (lambda (ds) (equal (assoc "AF101" (cl-remove-if-not (lambda (d) (= (nth 1 d) 8)) ds))
                                            '("AF101" 8 57 62))))
  (delete-char -2)
  (asyncfix-test-flush)
  (asyncfix-test-settle "AF101 back in place"
                        (lambda (ds) (equal ds '(("AF101" 7 29 34) ("AF101" 8 55 60) ("AF101" 17 34 39)))))
  (asyncfix-test-expect (buffer-string)
                        (decode-coding-string
                         (asyncfix-test-file (expand-file-name "legacy_train.py" asyncfix-test-scenario)) 'utf-8)
                        "the buffer after typing and deleting"))

(asyncfix-test-step "a quick fix through eglot-code-actions on the multi-byte line"
  (asyncfix-test-goto 8 55)
  (let ((offered (asyncfix-test-code-action "Replace `async=` with `non_blocking=`")))
    (dolist (title '("Fix all AF101 problems in this file" "Disable AF101 for this line"))
      (unless (member title offered) (error "%S missing from the menu %S" title offered))))
  (asyncfix-test-flush)
  (save-buffer)
  (asyncfix-test-expect-file asyncfix-test-train (expand-file-name "legacy_train.quickfix.py" asyncfix-test-scenario))
  (asyncfix-test-settle "the fixed diagnostic to go" (lambda (ds) (= (length ds) 2))))

(asyncfix-test-step "settings changed with workspace/didChangeConfiguration"
  (setq-default eglot-workspace-configuration '(:asyncfix (:ignore [])))
  (eglot-signal-didChangeConfiguration asyncfix-test-server)
  (asyncfix-test-settle "AF001 diagnostics" (lambda (ds) (= (length ds) 4)))
  (asyncfix-test-expect (asyncfix-test-diagnostics)
                        '(("AF101" 7 29 34) ("AF001" 16 4 9) ("AF101" 17 34 39) ("AF001" 17 40 45))
                        "diagnostics with AF001"))

(asyncfix-test-step "\"Fix all AF101\" from the menu"
  (asyncfix-test-goto 7 29)
  (asyncfix-test-code-action "Fix all AF101 problems in this file")
  (asyncfix-test-flush)
  (asyncfix-test-settle "AF101 to go" (lambda (ds) (= (length ds) 2)))
  (asyncfix-test-expect (asyncfix-test-diagnostics) '(("AF001" 16 4 9) ("AF001" 17 47 52))
                        "diagnostics after fixing AF101"))

(asyncfix-test-step "asyncfix.applyAutofix (workspace/executeCommand, then workspace/applyEdit)"
  (eglot-execute-command asyncfix-test-server 'asyncfix.applyAutofix
                         (vector (eglot--path-to-uri buffer-file-name)))
  (asyncfix-test-wait "the edit from workspace/applyEdit"
                      (lambda () (save-excursion (goto-char (point-min)) (search-forward "async_ = False" nil t))))
  (asyncfix-test-flush)
  (asyncfix-test-settle "every diagnostic to go" #'null)
  (save-buffer)
  (asyncfix-test-expect-file asyncfix-test-train (expand-file-name "legacy_train.fixed.py" asyncfix-test-scenario)))

(asyncfix-test-step "source.fixAll.asyncfix from eglot-code-actions (the README's fix-all recipe)"
  (goto-char (point-max))
  (insert "\n\ndef to_gpu(batch):\n    return batch.cuda(async=True)\n")
  (asyncfix-test-flush)
  (asyncfix-test-settle "the new AF101" (lambda (ds) (equal ds '(("AF101" 21 22 27)))))
  ;; One action of the kind: eglot applies it without asking (no completing-read allowed).
  (cl-letf (((symbol-function 'completing-read)
             (lambda (&rest _) (error "eglot asked which action to apply"))))
    (let ((last-nonmenu-event ?\r))
      (eglot-code-actions (point-min) (point-max) "source.fixAll.asyncfix" t)))
  (asyncfix-test-expect (buffer-substring-no-properties (line-beginning-position 0) (point-max))
                        "    return batch.cuda(non_blocking=True)\n" "the fixed last line")
  (asyncfix-test-flush)
  (asyncfix-test-settle "no diagnostics" #'null))

(asyncfix-test-step "shutdown: the server answers shutdown and goes away"
  ;; eglot 1.9 sends shutdown and exit, then deletes the process at once (status 9), so the exit
  ;; code says nothing; the answer to shutdown does.
  (let ((process (jsonrpc--process asyncfix-test-server)) (answered nil))
    (cl-letf* ((request (symbol-function 'jsonrpc-request))
               ((symbol-function 'jsonrpc-request)
                (lambda (connection method params &rest args)
                  (prog1 (apply request connection method params args)
                    (when (eq method :shutdown) (setq answered t))))))
      (eglot-shutdown asyncfix-test-server))
    (asyncfix-test-wait "the server process to end" (lambda () (not (process-live-p process))))
    (unless answered (error "The server did not answer shutdown"))))

;;; Run

(let ((passed 0) (failed nil))
  (cl-loop for (name . fn) in (reverse asyncfix-test-steps)
           do (condition-case err
                  (progn (funcall fn)
                         (cl-incf passed)
                         (asyncfix-test-log "ok   %s" name))
                (error (setq failed t)
                       (asyncfix-test-log "FAIL %s\n%s" name (error-message-string err))
                       (asyncfix-test-dump)))
           until failed)
  (asyncfix-test-log "%s: %d of %d steps passed (Emacs %s, eglot %s)" (if failed "FAIL" "PASS") passed
                     (length asyncfix-test-steps) emacs-version
                     (or (ignore-errors (require 'lisp-mnt) (lm-version (locate-library "eglot.el"))) "?"))
  (if failed
      (progn (asyncfix-test-log "files kept in %s" asyncfix-test-dir) (kill-emacs 1))
    (delete-directory asyncfix-test-dir t)
    (kill-emacs 0)))

;;; test-eglot.el ends here
