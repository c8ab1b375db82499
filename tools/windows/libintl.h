/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libintl.h for the Windows build: gettext's API as GNU libintl exports it
 * under libintl_ names from intl-8.dll (the name the GStreamer wheels' DLLs
 * import it by). mingw-w64 has no libintl, and Debian's header is glibc's,
 * which has gettext in libc. */
#ifndef TRAINBENCH_WINDOWS_LIBINTL_H
#define TRAINBENCH_WINDOWS_LIBINTL_H

#ifdef __cplusplus
extern "C" {
#endif

#define gettext libintl_gettext
#define dgettext libintl_dgettext
#define dcgettext libintl_dcgettext
#define ngettext libintl_ngettext
#define dngettext libintl_dngettext
#define dcngettext libintl_dcngettext
#define textdomain libintl_textdomain
#define bindtextdomain libintl_bindtextdomain
#define bind_textdomain_codeset libintl_bind_textdomain_codeset

/* as glibc's header says: the translation keeps the message's format */
#if defined(__GNUC__)
# define TB_INTL_FORMAT_ARG(n) __attribute__ ((__format_arg__ (n)))
#else
# define TB_INTL_FORMAT_ARG(n)
#endif

extern char *libintl_gettext (const char *msgid) TB_INTL_FORMAT_ARG (1);
extern char *libintl_dgettext (const char *domain, const char *msgid) TB_INTL_FORMAT_ARG (2);
extern char *libintl_dcgettext (const char *domain, const char *msgid, int category)
  TB_INTL_FORMAT_ARG (2);
extern char *libintl_ngettext (const char *msgid, const char *msgid_plural, unsigned long n)
  TB_INTL_FORMAT_ARG (1) TB_INTL_FORMAT_ARG (2);
extern char *libintl_dngettext (const char *domain, const char *msgid,
                                const char *msgid_plural, unsigned long n)
  TB_INTL_FORMAT_ARG (2) TB_INTL_FORMAT_ARG (3);
extern char *libintl_dcngettext (const char *domain, const char *msgid,
                                 const char *msgid_plural, unsigned long n, int category)
  TB_INTL_FORMAT_ARG (2) TB_INTL_FORMAT_ARG (3);
extern char *libintl_textdomain (const char *domainname);
extern char *libintl_bindtextdomain (const char *domainname, const char *dirname);
extern char *libintl_bind_textdomain_codeset (const char *domainname, const char *codeset);

/* GNU libintl on Windows: the folder as UTF-16, for paths outside the
 * ANSI code page */
#include <wchar.h>
#define wbindtextdomain libintl_wbindtextdomain
extern wchar_t *libintl_wbindtextdomain (const char *domainname, const wchar_t *wdirname);

#ifdef __cplusplus
}
#endif

#endif
