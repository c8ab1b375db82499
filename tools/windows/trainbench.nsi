; SPDX-License-Identifier: GPL-3.0-or-later
; The Trainbench installer for 64-bit Windows (NSIS 3). tools/build-windows
; runs makensis with:
;   VERSION, VERSION4  the project's version (meson), and as a.b.c.0
;   SRCDIR             the self-contained folder to install
;   LISTS              install.nsh / uninstall.nsh: its files, one by one
;                      (install-cuda.nsh: the CUDA module's, when CUDA is set)
;   CUDA               defined when the folder holds the CUDA module
;   OUTFILE, ICON, SIZE_KB
; It installs for the current user (no administrator rights) into
; %LOCALAPPDATA%\Programs\Trainbench, adds a Start menu entry and registers
; an uninstaller in Add/Remove Programs (HKCU). /S installs silently. The
; uninstaller removes exactly what was installed and keeps the user's runs
; (%LOCALAPPDATA%\Trainbench\runs) and settings. The CUDA module is an
; optional component, ticked by default (/NOCUDA leaves it out of a silent
; install); NVIDIA's driver, cuBLAS and cuDNN are not bundled.

Unicode true
Target amd64-unicode
SetCompressor /SOLID lzma
RequestExecutionLevel user
ManifestDPIAware true
ManifestSupportedOS Win10

!define APP "Trainbench"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Trainbench"

Name "${APP}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
BrandingText "${APP} ${VERSION}"

VIProductVersion "${VERSION4}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} ${VERSION} installer"
VIAddVersionKey "CompanyName" "The Trainbench authors"
VIAddVersionKey "LegalCopyright" "GPL-3.0-or-later"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "Sections.nsh"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\bin\trainbench.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP}"

!insertmacro MUI_PAGE_LICENSE "${SRCDIR}\licenses\Trainbench.txt"
!ifdef CUDA
!insertmacro MUI_PAGE_COMPONENTS
!endif
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!define MUI_UNCONFIRMPAGE_TEXT_TOP "${APP} will be removed from your computer. \
Your training runs in $LOCALAPPDATA\${APP}\runs and your settings are kept."
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

Section "!${APP}" SEC_APP
  SectionIn RO
  SetShellVarContext current
  !include "${LISTS}\install.nsh"

  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\bin\trainbench.exe" "" \
    "$INSTDIR\bin\trainbench.exe" 0 SW_SHOWNORMAL "" "Train neural networks and compare runs"

  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "The Trainbench authors"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\bin\trainbench.exe"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" ${SIZE_KB}
SectionEnd

!ifdef CUDA
Section "NVIDIA GPU support (CUDA)" SEC_CUDA
  SetShellVarContext current
  !include "${LISTS}\install-cuda.nsh"
SectionEnd

LangString DESC_APP ${LANG_ENGLISH} "The desktop app and trainbench-cli, training on the CPU."
LangString DESC_APP ${LANG_SIMPCHINESE} "桌面应用和 trainbench-cli，在 CPU 上训练。"
LangString DESC_CUDA ${LANG_ENGLISH} "Training on NVIDIA GPUs. Needs NVIDIA's driver 580 or \
newer, and cuBLAS and cuDNN 9, which are not included: install the CUDA Toolkit 13, or \
run pip install nvidia-cublas-cu12 nvidia-cudnn-cu12 (PyTorch brings them too)."
LangString DESC_CUDA ${LANG_SIMPCHINESE} "在 NVIDIA GPU 上训练。需要 580 或更新版本的 NVIDIA \
驱动，以及未包含在内的 cuBLAS 和 cuDNN 9：请安装 CUDA Toolkit 13，或运行 \
pip install nvidia-cublas-cu12 nvidia-cudnn-cu12（PyTorch 也会带来它们）。"
!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SEC_APP} $(DESC_APP)
  !insertmacro MUI_DESCRIPTION_TEXT ${SEC_CUDA} $(DESC_CUDA)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; /NOCUDA: the CUDA module left out, as unticking it does
Function .onInit
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/NOCUDA" $1
  ; (a label: the macro below is several instructions)
  IfErrors keep_cuda
  !insertmacro UnselectSection ${SEC_CUDA}
keep_cuda:
FunctionEnd
!endif

Section "Uninstall"
  SetShellVarContext current
  Delete "$SMPROGRAMS\${APP}.lnk"
  !include "${LISTS}\uninstall.nsh"
  Delete "$INSTDIR\uninstall.exe"
  ; not /r: a folder that holds something else than what was installed stays
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DetailPrint "Your training runs in $LOCALAPPDATA\${APP}\runs were kept."
SectionEnd
