/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-model-page.c: the Model page: a TbModelBuilder laid out by
 * tb-model-page.ui, under a line that names the preset loaded and says
 * when it was modified.
 */
#define G_LOG_DOMAIN "trainbench-model-page"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-model-page.h"

struct _TbModelPage
{
  GtkWidget parent_instance;

  /* template widgets */
  GtkWidget *box;            /* the page's one child */
  GtkWidget *preset_label;
  TbModelBuilder *builder;
};

G_DEFINE_FINAL_TYPE (TbModelPage, tb_model_page, GTK_TYPE_WIDGET)

/* Which preset the layers are, or came from. */
static void
builder_changed_cb (TbModelPage *self)
{
  const NnPreset *preset = tb_model_builder_get_loaded_preset (self->builder);
  g_autofree char *text = NULL;

  if (preset == NULL)
    text = g_strdup (_("Custom model"));
  else if (tb_model_builder_get_preset_name (self->builder) != NULL)
    text = g_strdup_printf (_("Preset: %s"), preset->title);
  else
    /* the layers were edited since the preset was loaded */
    text = g_strdup_printf (_("Preset: %s, modified"), preset->title);
  gtk_label_set_text (GTK_LABEL (self->preset_label), text);
}

static void
tb_model_page_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), TB_TYPE_MODEL_PAGE);
  G_OBJECT_CLASS (tb_model_page_parent_class)->dispose (object);
}

static void
tb_model_page_class_init (TbModelPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_model_page_dispose;

  g_type_ensure (TB_TYPE_MODEL_BUILDER);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-model-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbModelPage, box);
  gtk_widget_class_bind_template_child (widget_class, TbModelPage, preset_label);
  gtk_widget_class_bind_template_child (widget_class, TbModelPage, builder);
  gtk_widget_class_bind_template_callback (widget_class, builder_changed_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tb_model_page_init (TbModelPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  builder_changed_cb (self);
}

TbModelBuilder *
tb_model_page_get_builder (TbModelPage *self)
{
  g_return_val_if_fail (TB_IS_MODEL_PAGE (self), NULL);
  return self->builder;
}
